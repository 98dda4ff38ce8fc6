#include "doctor/checks.hpp"

#include "doctor/pci_config.hpp"
#include "results/port_counters.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace fb::doctor {
namespace {

std::string gpu_subject(const Gpu& gpu) { return fmt::format("GPU {}", gpu.pci_address); }
std::string nic_subject(const Nic& nic) { return fmt::format("NIC {}", nic.display_name()); }

std::string describe_speed(std::optional<double> speed_gts) {
  return speed_gts ? fmt::format("{:g} GT/s", *speed_gts) : "? GT/s";
}

std::string describe_width(std::optional<int> width_lanes) {
  return width_lanes ? fmt::format("x{}", *width_lanes) : "x?";
}

// A link below its capability. A narrow link is always an error (a reseat or a bad riser): it
// stays narrow under load. NVIDIA GPUs lower their link speed while idle to save power, so for a
// GPU a slow-but-full-width link is only a warning until it is seen under load; NICs keep theirs.
void check_link(const std::string& host, const std::string& subject, const std::optional<PciLink>& link,
                bool speed_drops_when_idle, std::vector<Flag>& findings) {
  if (!link || (!link->below_max_width() && !link->below_max_speed())) return;
  const bool error = link->below_max_width() || !speed_drops_when_idle;
  std::string message = fmt::format("PCIe link trained at {} {}, capable of {} {}",
                                    describe_width(link->current_width_lanes), describe_speed(link->current_speed_gts),
                                    describe_width(link->max_width_lanes), describe_speed(link->max_speed_gts));
  if (!error) message += " (GPUs slow their link when idle: check again under load)";
  findings.push_back({error ? Severity::error : Severity::warning, host, subject, std::move(message)});
}

// Error counters are cumulative since they were last cleared, which may be months ago: a count
// alone is worth a look (warning); growth while the doctor watched means the link is failing now.
void check_port_counters(const HostInventory& inventory, const IbPort& port, std::vector<Flag>& findings) {
  const std::string subject = fmt::format("port {} ({})", port.display_name(), port.pci_address);
  if (!port.errors_grown.empty()) {
    std::vector<std::string> grown;
    for (const auto& [name, delta] : port.errors_grown) grown.push_back(fmt::format("{} +{}", name, delta));
    findings.push_back(
        {Severity::error, inventory.host, subject,
         fmt::format("error counters grew within {:g} s: {}", inventory.counter_interval_s, fmt::join(grown, ", "))});
    return;
  }
  std::vector<std::string> nonzero;
  for (const auto& [name, value] : port.counters)
    if (value > 0 && is_error_counter(name)) nonzero.push_back(fmt::format("{} {}", name, value));
  if (nonzero.empty()) return;
  findings.push_back({Severity::warning, inventory.host, subject,
                      fmt::format("error counters since they were last cleared: {}{}", fmt::join(nonzero, ", "),
                                  inventory.counter_interval_s > 0
                                      ? fmt::format(" (none grew within {:g} s)", inventory.counter_interval_s)
                                      : " (--counter-interval S tells whether they still grow)")});
}

void check_numa_affinity(const HostInventory& inventory, std::vector<Flag>& findings) {
  // NCCL sends a GPU's traffic through a NIC near it; with none on its NUMA node the traffic
  // crosses the inter-socket link. Only RDMA NICs count where the host has any: a management
  // Ethernet port next to a GPU carries none of its collective traffic.
  const bool has_rdma =
      std::any_of(inventory.nics.begin(), inventory.nics.end(), [](const Nic& nic) { return nic.rdma_capable(); });
  std::set<int> nic_nodes;
  for (const Nic& nic : inventory.nics)
    if (nic.numa_node && (nic.rdma_capable() || !has_rdma)) nic_nodes.insert(*nic.numa_node);
  // No NUMA information anywhere (one socket, or a VM): nothing to compare.
  if (nic_nodes.empty()) return;
  for (const Gpu& gpu : inventory.gpus) {
    if (!gpu.numa_node || nic_nodes.contains(*gpu.numa_node)) continue;
    findings.push_back({Severity::warning, inventory.host, gpu_subject(gpu),
                        fmt::format("no {}NIC on its NUMA node {} (NICs are on node{} {}): its traffic crosses "
                                    "the inter-socket link",
                                    has_rdma ? "RDMA " : "", *gpu.numa_node, nic_nodes.size() > 1 ? "s" : "",
                                    fmt::join(nic_nodes, ", "))});
  }
}

void check_acs(const HostInventory& inventory, std::vector<Flag>& findings) {
  int unreadable = 0;
  for (const PcieBridge& bridge : inventory.bridges) {
    if (!bridge.extended_config_readable) {
      ++unreadable;
      continue;
    }
    if (!bridge.acs_control) continue;
    const std::vector<std::string> flags = acs_redirect_flags(*bridge.acs_control);
    if (flags.empty()) continue;
    findings.push_back(
        {Severity::error, inventory.host, fmt::format("bridge {}", bridge.pci_address),
         fmt::format("ACS redirects peer-to-peer traffic to the root complex ({} set, ACSCtl "
                     "{:#06x}) above {}: disable ACS for GPUDirect P2P and RDMA",
                     fmt::join(flags, " "), *bridge.acs_control, fmt::join(bridge.devices_below, ", "))});
  }
  if (unreadable > 0)
    findings.push_back({Severity::info, inventory.host, "ACS",
                        fmt::format("the extended config space of {} bridge{} is not readable (run as root): ACS "
                                    "not checked there",
                                    unreadable, unreadable > 1 ? "s" : "")});
}

void check_gpudirect_rdma(const HostInventory& inventory, std::vector<Flag>& findings) {
  const bool has_rdma =
      std::any_of(inventory.nics.begin(), inventory.nics.end(), [](const Nic& nic) { return nic.rdma_capable(); });
  if (inventory.gpus.empty() || !has_rdma || inventory.gpudirect_rdma.possible()) return;
  findings.push_back(
      {Severity::warning, inventory.host, "GPUDirect RDMA",
       fmt::format("not available: nvidia_peermem is not loaded and dma-buf needs the open NVIDIA "
                   "kernel module on Linux >= 5.12 (kernel {}); NCCL will stage through host memory",
                   inventory.gpudirect_rdma.kernel_release.empty() ? "unknown"
                                                                   : inventory.gpudirect_rdma.kernel_release)});
}

// "8 × a; 1 × b": a multiset of per-device descriptions, in a form that compares equal exactly
// when the hosts have the same devices in the same state.
std::string counted(const std::vector<std::string>& items) {
  if (items.empty()) return "none";
  std::map<std::string, int> counts;
  for (const std::string& item : items) ++counts[item];
  std::vector<std::string> parts;
  for (const auto& [item, count] : counts) parts.push_back(fmt::format("{} × {}", count, item));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string or_none(const std::string& text) { return text.empty() ? "none" : text; }

struct ComparedAttribute {
  std::string name;
  Severity severity;
  std::function<std::string(const HostInventory&)> value_of;
};

const std::vector<ComparedAttribute>& compared_attributes() {
  static const std::vector<ComparedAttribute> attributes{
      {"NVIDIA driver", Severity::error,
       [](const HostInventory& h) { return or_none(h.versions.nvidia_driver.version); }},
      {"CUDA", Severity::error, [](const HostInventory& h) { return or_none(h.versions.cuda.version); }},
      {"NCCL", Severity::error, [](const HostInventory& h) { return or_none(h.versions.nccl.version); }},
      {"MPI library", Severity::error, [](const HostInventory& h) { return or_none(h.versions.mpi_library.version); }},
      {"GPU count", Severity::error, [](const HostInventory& h) { return std::to_string(h.gpus.size()); }},
      {"GPU models", Severity::error,
       [](const HostInventory& h) {
         std::vector<std::string> models;
         for (const Gpu& gpu : h.gpus) models.push_back(gpu.model);
         return counted(models);
       }},
      {"NIC count", Severity::error, [](const HostInventory& h) { return std::to_string(h.nics.size()); }},
      {"IB ports", Severity::error,
       [](const HostInventory& h) {
         std::vector<std::string> ports;
         for (const IbPort& port : h.ib_ports)
           ports.push_back(fmt::format("{} {} {}", port.state, port.rate, port.link_layer));
         return counted(ports);
       }},
      {"PCIe link widths", Severity::error,
       [](const HostInventory& h) {
         std::vector<std::string> widths;
         for (const Gpu& gpu : h.gpus)
           if (gpu.link) widths.push_back("GPU " + describe_width(gpu.link->current_width_lanes));
         for (const Nic& nic : h.nics)
           if (nic.link) widths.push_back("NIC " + describe_width(nic.link->current_width_lanes));
         return counted(widths);
       }},
      {"GPUDirect RDMA", Severity::warning,
       [](const HostInventory& h) { return std::string(h.gpudirect_rdma.possible() ? "possible" : "not possible"); }},
      {"environment", Severity::warning,
       [](const HostInventory& h) {
         std::vector<std::string> settings;
         for (const auto& [name, value] : h.environment) settings.push_back(name + "=" + value);
         return settings.empty() ? std::string("none") : fmt::format("{}", fmt::join(settings, " "));
       }},
  };
  return attributes;
}

}  // namespace

std::string_view name_of(Severity severity) {
  switch (severity) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "unknown";
}

std::vector<Flag> check_host(const HostInventory& inventory) {
  std::vector<Flag> findings;
  if (inventory.gpus.empty())
    findings.push_back({Severity::info, inventory.host, "GPUs",
                        "no NVIDIA GPU (PCI vendor 0x10de, class 0x0300 or 0x0302) on this host"});
  if (inventory.nics.empty())
    findings.push_back(
        {Severity::info, inventory.host, "NICs", "no network adapter (PCI class 0x0200 or 0x0207) on this host"});
  for (const Gpu& gpu : inventory.gpus) check_link(inventory.host, gpu_subject(gpu), gpu.link, true, findings);
  for (const Nic& nic : inventory.nics) check_link(inventory.host, nic_subject(nic), nic.link, false, findings);
  for (const IbPort& port : inventory.ib_ports) {
    check_port_counters(inventory, port, findings);
    if (port.active()) continue;
    findings.push_back({Severity::error, inventory.host,
                        fmt::format("port {} ({})", port.display_name(), port.pci_address),
                        fmt::format("port is {} (physical state {}, {})", or_none(port.state),
                                    or_none(port.physical_state), or_none(port.link_layer))});
  }
  check_numa_affinity(inventory, findings);
  check_acs(inventory, findings);
  check_gpudirect_rdma(inventory, findings);
  return findings;
}

std::vector<Flag> compare_hosts(std::span<const HostInventory> hosts) {
  std::vector<Flag> findings;
  if (hosts.size() < 2) return findings;
  for (const ComparedAttribute& attribute : compared_attributes()) {
    std::map<std::string, std::vector<std::string>> hosts_by_value;
    for (const HostInventory& host : hosts) hosts_by_value[attribute.value_of(host)].push_back(host.host);
    if (hosts_by_value.size() == 1) continue;
    const auto majority = std::max_element(hosts_by_value.begin(), hosts_by_value.end(),
                                           [](auto& a, auto& b) { return a.second.size() < b.second.size(); });
    if (majority->second.size() * 2 > hosts.size()) {
      for (const auto& [value, value_hosts] : hosts_by_value) {
        if (value == majority->first) continue;
        for (const std::string& host : value_hosts)
          findings.push_back({attribute.severity, host, attribute.name,
                              fmt::format("differs from the majority: {} here, {} on {} of {} hosts", value,
                                          majority->first, majority->second.size(), hosts.size())});
      }
      continue;
    }
    std::vector<std::string> groups;
    for (const auto& [value, value_hosts] : hosts_by_value)
      groups.push_back(fmt::format("{} on {}", value, fmt::join(value_hosts, ", ")));
    findings.push_back({attribute.severity, "", attribute.name,
                        fmt::format("hosts disagree with no majority: {}", fmt::join(groups, " | "))});
  }
  return findings;
}

std::vector<Flag> check_hosts(std::span<const HostInventory> hosts) {
  std::vector<Flag> findings;
  for (const HostInventory& host : hosts) {
    std::vector<Flag> host_findings = check_host(host);
    findings.insert(findings.end(), host_findings.begin(), host_findings.end());
  }
  std::vector<Flag> cross_host = compare_hosts(hosts);
  findings.insert(findings.end(), cross_host.begin(), cross_host.end());
  return findings;
}

bool has_errors(std::span<const Flag> findings) {
  return std::any_of(findings.begin(), findings.end(), [](const Flag& f) { return f.severity == Severity::error; });
}

}  // namespace fb::doctor
