#include "doctor/host_inventory.hpp"

#include "common/host_environment.hpp"
#include "doctor/pci_config.hpp"
#include "doctor/port_counters.hpp"
#include "doctor/software_versions.hpp"
#include "common/sysfs_files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace fb::doctor {
namespace {

namespace fs = std::filesystem;

constexpr long nvidia_vendor_id = 0x10de;
// PCI class codes, without the programming-interface byte (class >> 8).
constexpr long vga_class = 0x0300;
constexpr long display_3d_class = 0x0302;
constexpr long ethernet_class = 0x0200;
constexpr long infiniband_class = 0x0207;

std::optional<int> numa_node_of(const fs::path& device_dir) {
  const std::optional<long> node = read_integer(device_dir / "numa_node");
  // The kernel writes -1 where the firmware gives no proximity information.
  if (!node || *node < 0) return std::nullopt;
  return static_cast<int>(*node);
}

std::optional<int> link_width_of(const fs::path& file) {
  const std::optional<long> lanes = read_integer(file);
  // A link that is down reads 0 lanes; some devices report 255 for "unknown".
  if (!lanes || *lanes <= 0 || *lanes > 32) return std::nullopt;
  return static_cast<int>(*lanes);
}

std::optional<PciLink> link_of(const fs::path& device_dir) {
  PciLink link;
  if (const auto speed = read_first_line(device_dir / "current_link_speed"))
    link.current_speed_gts = parse_link_speed_gts(*speed);
  if (const auto speed = read_first_line(device_dir / "max_link_speed"))
    link.max_speed_gts = parse_link_speed_gts(*speed);
  link.current_width_lanes = link_width_of(device_dir / "current_link_width");
  link.max_width_lanes = link_width_of(device_dir / "max_link_width");
  // Functions without a PCIe capability (virtio, integrated devices) have none of these files.
  if (!link.current_speed_gts && !link.max_speed_gts && !link.current_width_lanes && !link.max_width_lanes)
    return std::nullopt;
  return link;
}

// The PCI function a class device (net, infiniband) belongs to: its `device` link points at the
// function itself, or at a child of it (virtio-net points at virtioN below the PCI function).
std::string pci_address_behind(const fs::path& class_device_dir) {
  const std::optional<fs::path> device = resolve(class_device_dir / "device");
  if (!device) return {};
  for (fs::path at = *device; at.has_relative_path(); at = at.parent_path()) {
    if (is_pci_address(at.filename().string())) return at.filename().string();
    if (at == at.parent_path()) break;
  }
  return {};
}

// The PCIe bridges above a function, nearest first: sysfs nests every function below the
// bridge it sits behind (/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/...).
std::vector<std::string> bridges_above(const fs::path& device_dir) {
  std::vector<std::string> bridges;
  const std::optional<fs::path> resolved = resolve(device_dir);
  if (!resolved) return bridges;
  for (fs::path at = resolved->parent_path(); at.has_relative_path() && at != at.parent_path(); at = at.parent_path()) {
    const std::string name = at.filename().string();
    if (is_pci_address(name)) bridges.push_back(name);
  }
  return bridges;
}

// "Model: \t\t NVIDIA H100 80GB HBM3" from the driver's per-GPU information file.
std::string gpu_model_of(const fs::path& root, const std::string& pci_address, long device_id) {
  if (const auto information =
          read_system_file(under_root(root, "/proc/driver/nvidia/gpus") / pci_address / "information")) {
    constexpr std::string_view key = "Model:";
    if (const auto at = information->find(key); at != std::string::npos) {
      const auto begin = information->find_first_not_of(" \t", at + key.size());
      const auto end = information->find('\n', at);
      if (begin != std::string::npos && begin < end) return information->substr(begin, end - begin);
    }
  }
  return fmt::format("10de:{:04x}", device_id);
}

void attach_class_devices(const fs::path& root, std::vector<Nic>& nics, std::vector<IbPort>& ib_ports) {
  auto nic_at = [&](const std::string& pci_address) -> Nic* {
    auto it = std::find_if(nics.begin(), nics.end(), [&](const Nic& nic) { return nic.pci_address == pci_address; });
    return it == nics.end() ? nullptr : &*it;
  };
  const fs::path net_dir = under_root(root, "/sys/class/net");
  for (const std::string& name : sorted_entries(net_dir)) {
    // Virtual interfaces (lo, bridges, veth) have no device link and are no NIC.
    if (Nic* nic = nic_at(pci_address_behind(net_dir / name))) nic->net_devices.push_back(name);
  }
  const fs::path rdma_dir = under_root(root, "/sys/class/infiniband");
  for (const std::string& name : sorted_entries(rdma_dir))
    if (Nic* nic = nic_at(pci_address_behind(rdma_dir / name))) {
      nic->rdma_devices.push_back(name);
      if (nic->firmware.empty()) nic->firmware = read_first_line(rdma_dir / name / "fw_ver").value_or("");
    }
  for (const RdmaPort& rdma_port : rdma_ports(rdma_dir)) {
    IbPort port;
    port.rdma_device = rdma_port.device;
    port.port = rdma_port.number;
    port.pci_address = pci_address_behind(rdma_dir / rdma_port.device);
    port.state = read_port_state(rdma_port.dir / "state");
    port.physical_state = read_port_state(rdma_port.dir / "phys_state");
    port.rate = read_first_line(rdma_port.dir / "rate").value_or("");
    port.link_layer = read_first_line(rdma_port.dir / "link_layer").value_or("");
    port.counters = read_port_counters(rdma_port.dir);
    ib_ports.push_back(std::move(port));
  }
}

PcieBridge bridge_at(const fs::path& devices_dir, const std::string& pci_address) {
  PcieBridge bridge;
  bridge.pci_address = pci_address;
  if (const auto config = read_system_file(devices_dir / pci_address / "config")) {
    const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(config->data()), config->size());
    bridge.extended_config_readable = bytes.size() > extended_config_offset;
    bridge.acs_control = acs_control_register(bytes);
  }
  return bridge;
}

std::vector<PcieBridge> bridges_of(const fs::path& devices_dir, const std::vector<Gpu>& gpus,
                                   const std::vector<Nic>& nics) {
  std::map<std::string, PcieBridge> by_address;
  auto add = [&](const std::vector<std::string>& bridges, const std::string& device) {
    for (const std::string& address : bridges) {
      auto [it, added] = by_address.try_emplace(address);
      if (added) it->second = bridge_at(devices_dir, address);
      it->second.devices_below.push_back(device);
    }
  };
  for (const Gpu& gpu : gpus) add(gpu.bridges, "GPU " + gpu.pci_address);
  for (const Nic& nic : nics) add(nic.bridges, "NIC " + nic.display_name());
  std::vector<PcieBridge> bridges;
  for (auto& [address, bridge] : by_address) bridges.push_back(std::move(bridge));
  return bridges;
}

GpuDirectRdma gpudirect_rdma_of(const fs::path& root) {
  GpuDirectRdma support;
  std::error_code ignored;
  support.nvidia_peermem_loaded = fs::exists(under_root(root, "/sys/module/nvidia_peermem"), ignored);
  support.nv_peer_mem_loaded = fs::exists(under_root(root, "/sys/module/nv_peer_mem"), ignored);
  support.open_kernel_module =
      read_first_line(under_root(root, "/proc/driver/nvidia/version")).value_or("").find("Open Kernel Module") !=
      std::string::npos;
  support.kernel_release = read_first_line(under_root(root, "/proc/sys/kernel/osrelease")).value_or("");
  return support;
}

std::map<std::string, std::string> tuning_environment() {
  std::map<std::string, std::string> environment;
  for (char** entry = environ; *entry; ++entry) {
    const std::string_view text = *entry;
    const auto equals = text.find('=');
    if (equals != std::string_view::npos && is_relevant_environment_variable(text.substr(0, equals)))
      environment.emplace(text.substr(0, equals), text.substr(equals + 1));
  }
  return environment;
}

}  // namespace

bool PciLink::below_max_speed() const {
  return current_speed_gts && max_speed_gts && *current_speed_gts < *max_speed_gts;
}

bool PciLink::below_max_width() const {
  return current_width_lanes && max_width_lanes && *current_width_lanes < *max_width_lanes;
}

std::string Nic::display_name() const {
  const std::vector<std::string>& names = rdma_devices.empty() ? net_devices : rdma_devices;
  if (names.empty()) return pci_address;
  return fmt::format("{} ({})", names.front(), pci_address);
}

std::string IbPort::display_name() const { return fmt::format("{}/{}", rdma_device, port); }

bool GpuDirectRdma::dma_buf_possible() const {
  int major = 0;
  int minor = 0;
  const char* text = kernel_release.data();
  const char* end = text + kernel_release.size();
  const auto [after_major, major_error] = std::from_chars(text, end, major);
  if (major_error != std::errc() || after_major == end || *after_major != '.') return false;
  if (std::from_chars(after_major + 1, end, minor).ec != std::errc()) return false;
  return open_kernel_module && (major > 5 || (major == 5 && minor >= 12));
}

bool is_pci_address(std::string_view name) {
  // domain (4+ hex) ':' bus (2 hex) ':' device (2 hex) '.' function (1 digit 0-7)
  const auto colon = name.find(':');
  if (colon == std::string_view::npos || colon < 4 || name.size() != colon + 8) return false;
  auto hex = [](std::string_view part) {
    return std::all_of(part.begin(), part.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
  };
  return hex(name.substr(0, colon)) && name[colon + 3] == ':' && name[colon + 6] == '.' &&
         hex(name.substr(colon + 1, 2)) && hex(name.substr(colon + 4, 2)) && name[colon + 7] >= '0' &&
         name[colon + 7] <= '7';
}

std::optional<double> parse_link_speed_gts(std::string_view text) {
  double speed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), speed);
  if (error != std::errc() || speed <= 0) return std::nullopt;
  return speed;
}

// /proc/cpuinfo's "model name" of the first processor and the count of "processor" lines;
// /proc/meminfo's "MemTotal: N kB".
HostResources resources_of(const fs::path& root) {
  HostResources resources;
  std::istringstream cpuinfo(read_system_file(under_root(root, "/proc/cpuinfo")).value_or(""));
  for (std::string line; std::getline(cpuinfo, line);) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    if (key == "processor") ++resources.cpu_threads;
    if (key == "model name" && resources.cpu_model.empty()) resources.cpu_model = value;
  }
  std::istringstream meminfo(read_system_file(under_root(root, "/proc/meminfo")).value_or(""));
  for (std::string line; std::getline(meminfo, line);) {
    if (!line.starts_with("MemTotal:")) continue;
    std::uint64_t kib = 0;
    std::istringstream(line.substr(9)) >> kib;
    if (kib > 0) resources.memory_bytes = kib * 1024;
  }
  // os-release(5): /etc first, /usr/lib where /etc has none; a value may be quoted.
  std::istringstream os_release(read_system_file(under_root(root, "/etc/os-release"))
                                    .value_or(read_system_file(under_root(root, "/usr/lib/os-release")).value_or("")));
  for (std::string line; std::getline(os_release, line);) {
    if (!line.starts_with("PRETTY_NAME=")) continue;
    std::string value = line.substr(12);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    resources.os = value;
  }
  return resources;
}

HostInventory collect_host_inventory(const fs::path& sysfs_root) {
  const fs::path devices_dir = under_root(sysfs_root, "/sys/bus/pci/devices");
  std::error_code error;
  if (!fs::is_directory(devices_dir, error))
    throw std::runtime_error(
        fmt::format("{} does not exist: --sysfs-root must hold sys/bus/pci/devices", devices_dir.string()));

  HostInventory inventory;
  inventory.host = this_host_name();
  inventory.resources = resources_of(sysfs_root);
  for (const std::string& address : sorted_entries(devices_dir)) {
    if (!is_pci_address(address)) continue;
    const fs::path device_dir = devices_dir / address;
    const std::optional<long> pci_class = read_integer(device_dir / "class");
    const std::optional<long> vendor = read_integer(device_dir / "vendor");
    const std::optional<long> device = read_integer(device_dir / "device");
    if (!pci_class || !vendor) continue;
    const long base_class = *pci_class >> 8;
    if (*vendor == nvidia_vendor_id && (base_class == display_3d_class || base_class == vga_class)) {
      inventory.gpus.push_back(Gpu{address, gpu_model_of(sysfs_root, address, device.value_or(0)),
                                   numa_node_of(device_dir), link_of(device_dir), bridges_above(device_dir)});
    } else if (base_class == ethernet_class || base_class == infiniband_class) {
      Nic nic;
      nic.pci_address = address;
      nic.kind = base_class == infiniband_class ? NicKind::infiniband : NicKind::ethernet;
      nic.vendor_device = fmt::format("{:04x}:{:04x}", *vendor, device.value_or(0));
      nic.numa_node = numa_node_of(device_dir);
      nic.link = link_of(device_dir);
      nic.bridges = bridges_above(device_dir);
      inventory.nics.push_back(std::move(nic));
    }
  }
  attach_class_devices(sysfs_root, inventory.nics, inventory.ib_ports);
  inventory.bridges = bridges_of(devices_dir, inventory.gpus, inventory.nics);
  inventory.gpudirect_rdma = gpudirect_rdma_of(sysfs_root);
  inventory.versions = detect_software_versions(sysfs_root);
  inventory.environment = tuning_environment();
  return inventory;
}

void record_port_counter_growth(HostInventory& inventory, const fs::path& sysfs_root, double interval_s) {
  inventory.counter_interval_s = interval_s;
  for (const PortCounterSample& sample : sample_port_counters(sysfs_root))
    for (IbPort& port : inventory.ib_ports)
      if (port.display_name() == sample.port) port.errors_grown = grown_error_counters(port.counters, sample.counters);
}

}  // namespace fb::doctor
