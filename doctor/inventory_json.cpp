#include "doctor/inventory_json.hpp"

namespace fb::doctor {
namespace {

using nlohmann::json;

template <typename T>
json optional_json(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

template <typename T>
std::optional<T> optional_from(const json& object, const char* key) {
  if (!object.contains(key) || object.at(key).is_null()) return std::nullopt;
  return object.at(key).get<T>();
}

json to_json_value(const std::optional<PciLink>& link) { return link ? json(*link) : json(nullptr); }

std::optional<PciLink> link_from(const json& object) {
  if (object.at("link").is_null()) return std::nullopt;
  return object.at("link").get<PciLink>();
}

json version_json(const DetectedVersion& version) { return {{"version", version.version}, {"source", version.source}}; }

DetectedVersion version_from(const json& object) {
  return {object.at("version").get<std::string>(), object.at("source").get<std::string>()};
}

std::string_view kind_name(NicKind kind) { return kind == NicKind::infiniband ? "infiniband" : "ethernet"; }

NicKind kind_from(const std::string& name) {
  if (name == "infiniband") return NicKind::infiniband;
  if (name == "ethernet") return NicKind::ethernet;
  throw std::invalid_argument("unknown NIC kind \"" + name + "\"");
}

}  // namespace

void to_json(json& out, const PciLink& link) {
  out = {{"current_speed_gts", optional_json(link.current_speed_gts)},
         {"current_width_lanes", optional_json(link.current_width_lanes)},
         {"max_speed_gts", optional_json(link.max_speed_gts)},
         {"max_width_lanes", optional_json(link.max_width_lanes)}};
}

void from_json(const json& in, PciLink& link) {
  link.current_speed_gts = optional_from<double>(in, "current_speed_gts");
  link.current_width_lanes = optional_from<int>(in, "current_width_lanes");
  link.max_speed_gts = optional_from<double>(in, "max_speed_gts");
  link.max_width_lanes = optional_from<int>(in, "max_width_lanes");
}

void to_json(json& out, const HostInventory& inventory) {
  json gpus = json::array();
  for (const Gpu& gpu : inventory.gpus)
    gpus.push_back({{"pci_address", gpu.pci_address},
                    {"model", gpu.model},
                    {"numa_node", optional_json(gpu.numa_node)},
                    {"link", to_json_value(gpu.link)},
                    {"bridges", gpu.bridges}});
  json nics = json::array();
  for (const Nic& nic : inventory.nics)
    nics.push_back({{"pci_address", nic.pci_address},
                    {"kind", kind_name(nic.kind)},
                    {"vendor_device", nic.vendor_device},
                    {"numa_node", optional_json(nic.numa_node)},
                    {"link", to_json_value(nic.link)},
                    {"net_devices", nic.net_devices},
                    {"rdma_devices", nic.rdma_devices},
                    {"firmware", nic.firmware},
                    {"bridges", nic.bridges}});
  json ports = json::array();
  for (const IbPort& port : inventory.ib_ports)
    ports.push_back({{"rdma_device", port.rdma_device},
                     {"port", port.port},
                     {"pci_address", port.pci_address},
                     {"state", port.state},
                     {"physical_state", port.physical_state},
                     {"rate", port.rate},
                     {"link_layer", port.link_layer},
                     {"counters", port.counters},
                     {"errors_grown", port.errors_grown}});
  json bridges = json::array();
  for (const PcieBridge& bridge : inventory.bridges)
    bridges.push_back({{"pci_address", bridge.pci_address},
                       {"extended_config_readable", bridge.extended_config_readable},
                       {"acs_control", optional_json(bridge.acs_control)},
                       {"devices_below", bridge.devices_below}});
  const GpuDirectRdma& rdma = inventory.gpudirect_rdma;
  out = {{"host", inventory.host},
         {"gpus", gpus},
         {"nics", nics},
         {"ib_ports", ports},
         {"bridges", bridges},
         {"gpudirect_rdma",
          {{"nvidia_peermem_loaded", rdma.nvidia_peermem_loaded},
           {"nv_peer_mem_loaded", rdma.nv_peer_mem_loaded},
           {"open_kernel_module", rdma.open_kernel_module},
           {"kernel_release", rdma.kernel_release},
           {"dma_buf_possible", rdma.dma_buf_possible()}}},
         {"versions",
          {{"nvidia_driver", version_json(inventory.versions.nvidia_driver)},
           {"cuda", version_json(inventory.versions.cuda)},
           {"nccl", version_json(inventory.versions.nccl)},
           {"mpi_library", version_json(inventory.versions.mpi_library)}}},
         {"environment", inventory.environment},
         {"counter_interval_s", inventory.counter_interval_s},
         {"resources",
          {{"cpu_model", inventory.resources.cpu_model},
           {"os", inventory.resources.os},
           {"cpu_threads", inventory.resources.cpu_threads},
           {"memory_bytes",
            inventory.resources.memory_bytes ? json(*inventory.resources.memory_bytes) : json(nullptr)}}}};
}

void from_json(const json& in, HostInventory& inventory) {
  inventory.host = in.at("host").get<std::string>();
  for (const json& gpu : in.at("gpus"))
    inventory.gpus.push_back(Gpu{gpu.at("pci_address").get<std::string>(), gpu.at("model").get<std::string>(),
                                 optional_from<int>(gpu, "numa_node"), link_from(gpu),
                                 gpu.at("bridges").get<std::vector<std::string>>()});
  for (const json& nic : in.at("nics")) {
    Nic parsed;
    parsed.pci_address = nic.at("pci_address").get<std::string>();
    parsed.kind = kind_from(nic.at("kind").get<std::string>());
    parsed.vendor_device = nic.at("vendor_device").get<std::string>();
    parsed.numa_node = optional_from<int>(nic, "numa_node");
    parsed.link = link_from(nic);
    parsed.net_devices = nic.at("net_devices").get<std::vector<std::string>>();
    parsed.rdma_devices = nic.at("rdma_devices").get<std::vector<std::string>>();
    parsed.bridges = nic.at("bridges").get<std::vector<std::string>>();
    parsed.firmware = nic.value("firmware", "");  // reports written before it was read have none
    inventory.nics.push_back(std::move(parsed));
  }
  using Counters = std::map<std::string, std::uint64_t>;
  for (const json& port : in.at("ib_ports"))
    inventory.ib_ports.push_back(IbPort{port.at("rdma_device").get<std::string>(), port.at("port").get<int>(),
                                        port.at("pci_address").get<std::string>(), port.at("state").get<std::string>(),
                                        port.at("physical_state").get<std::string>(),
                                        port.at("rate").get<std::string>(), port.at("link_layer").get<std::string>(),
                                        port.at("counters").get<Counters>(), port.at("errors_grown").get<Counters>()});
  for (const json& bridge : in.at("bridges"))
    inventory.bridges.push_back(PcieBridge{bridge.at("pci_address").get<std::string>(),
                                           bridge.at("extended_config_readable").get<bool>(),
                                           optional_from<std::uint16_t>(bridge, "acs_control"),
                                           bridge.at("devices_below").get<std::vector<std::string>>()});
  const json& rdma = in.at("gpudirect_rdma");
  inventory.gpudirect_rdma =
      GpuDirectRdma{rdma.at("nvidia_peermem_loaded").get<bool>(), rdma.at("nv_peer_mem_loaded").get<bool>(),
                    rdma.at("open_kernel_module").get<bool>(), rdma.at("kernel_release").get<std::string>()};
  const json& versions = in.at("versions");
  inventory.versions = SoftwareVersions{version_from(versions.at("nvidia_driver")), version_from(versions.at("cuda")),
                                        version_from(versions.at("nccl")), version_from(versions.at("mpi_library"))};
  inventory.environment = in.at("environment").get<std::map<std::string, std::string>>();
  inventory.counter_interval_s = in.at("counter_interval_s").get<double>();
  // Reports written before the resources were read have none: they stay empty.
  if (const auto resources = in.find("resources"); resources != in.end()) {
    inventory.resources.cpu_model = resources->at("cpu_model").get<std::string>();
    inventory.resources.cpu_threads = resources->at("cpu_threads").get<int>();
    inventory.resources.memory_bytes = optional_from<std::uint64_t>(*resources, "memory_bytes");
    inventory.resources.os = resources->value("os", "");
  }
}

}  // namespace fb::doctor
