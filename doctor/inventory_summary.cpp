#include "doctor/inventory_summary.hpp"

#include <fmt/format.h>

#include <map>

namespace fb::doctor {
namespace {

// "8 x NVIDIA H100 80GB HBM3", or "4 x A, 4 x B" for a mixed host.
template <class Items, class Name>
std::string counted(const Items& items, Name name) {
  if (items.empty()) return "none";
  std::map<std::string, int> counts;
  for (const auto& item : items) ++counts[name(item)];
  std::string text;
  for (const auto& [what, count] : counts) text += fmt::format("{}{} x {}", text.empty() ? "" : ", ", count, what);
  return text;
}

std::string link_text(const std::optional<PciLink>& link) {
  if (!link || !link->current_speed_gts || !link->current_width_lanes) return "not reported";
  std::string text = fmt::format("{:g} GT/s x{}", *link->current_speed_gts, *link->current_width_lanes);
  if (link->below_max_speed() || link->below_max_width())
    text +=
        fmt::format(" (capable of {:g} GT/s x{})", link->max_speed_gts.value_or(0), link->max_width_lanes.value_or(0));
  return text;
}

std::string version_text(const DetectedVersion& version) {
  return version.version.empty() ? "not found" : version.version;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> summarize_inventory(const HostInventory& inventory) {
  std::vector<std::pair<std::string, std::string>> facts;
  const HostResources& resources = inventory.resources;
  facts.emplace_back("OS", resources.os.empty() ? std::string("not found") : resources.os);
  facts.emplace_back("CPU", resources.cpu_model.empty()
                                ? std::string("not found")
                                : fmt::format("{} ({} threads)", resources.cpu_model, resources.cpu_threads));
  facts.emplace_back("memory", resources.memory_bytes
                                   ? fmt::format("{:.1f} GiB", static_cast<double>(*resources.memory_bytes) /
                                                                   static_cast<double>(1ULL << 30))
                                   : std::string("not found"));
  facts.emplace_back("GPUs", counted(inventory.gpus, [](const Gpu& gpu) { return gpu.model; }));
  if (!inventory.gpus.empty())
    facts.emplace_back("GPU PCIe links", counted(inventory.gpus, [](const Gpu& gpu) { return link_text(gpu.link); }));
  facts.emplace_back("NICs", counted(inventory.nics, [](const Nic& nic) {
                       return fmt::format("{} {}", nic.kind == NicKind::infiniband ? "InfiniBand" : "Ethernet",
                                          nic.vendor_device);
                     }));
  facts.emplace_back("RDMA ports", counted(inventory.ib_ports, [](const IbPort& port) {
                       return fmt::format("{} {} {}", port.state, port.rate, port.link_layer);
                     }));
  if (!inventory.nics.empty())
    facts.emplace_back("NIC firmware", counted(inventory.nics, [](const Nic& nic) {
                         return nic.firmware.empty() ? std::string("not in sysfs (no RDMA device)") : nic.firmware;
                       }));
  if (!inventory.gpus.empty())
    facts.emplace_back("GPUDirect RDMA", inventory.gpudirect_rdma.possible() ? "possible" : "not possible");
  facts.emplace_back("NVIDIA driver", version_text(inventory.versions.nvidia_driver));
  facts.emplace_back("CUDA", version_text(inventory.versions.cuda));
  facts.emplace_back("NCCL", version_text(inventory.versions.nccl));
  facts.emplace_back("MPI library", version_text(inventory.versions.mpi_library));
  facts.emplace_back("kernel", inventory.gpudirect_rdma.kernel_release.empty()
                                   ? "not found"
                                   : inventory.gpudirect_rdma.kernel_release);
  return facts;
}

}  // namespace fb::doctor
