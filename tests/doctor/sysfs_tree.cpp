#include "sysfs_tree.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

namespace fb::testing {
namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& path, const std::string& contents) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << contents;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// A relative symlink at `link` to `target`, as the kernel makes them ("../../../0000:17:00.0").
void link_relative(const fs::path& link, const fs::path& target) {
  fs::create_directories(link.parent_path());
  fs::create_symlink(fs::relative(target, link.parent_path()), link);
}

void put_le(std::vector<std::uint8_t>& bytes, std::size_t offset, std::uint32_t value, int width_bytes) {
  for (int i = 0; i < width_bytes; ++i) bytes[offset + static_cast<std::size_t>(i)] = (value >> (8 * i)) & 0xffu;
}

std::uint32_t extended_header(std::uint16_t id, std::uint32_t next_offset) {
  constexpr std::uint32_t version = 1;
  return id | version << 16 | next_offset << 20;
}

// The bus number of pair `pair`'s root port; the pair's other functions use the next buses.
int root_bus(int pair) { return 0x10 * (pair + 1); }
std::string address_on(int bus, int device) { return fmt::format("0000:{:02x}:{:02x}.0", bus, device); }
std::string root_port_address(int pair) { return address_on(root_bus(pair), 1); }
std::string switch_upstream_address(int pair) { return address_on(root_bus(pair) + 1, 0); }
std::string nic_switch_port_address(int pair) { return address_on(root_bus(pair) + 2, 1); }

constexpr int pairs = 8;
constexpr std::uint32_t bridge_class = 0x060400;

}  // namespace

std::vector<std::uint8_t> config_space_with_acs(std::uint16_t vendor, std::uint16_t device,
                                                std::optional<std::uint16_t> acs_control) {
  std::vector<std::uint8_t> config(4096, 0);
  put_le(config, 0, vendor, 2);
  put_le(config, 2, device, 2);
  // Advanced Error Reporting (id 0x0001) first, as on real bridges, then ACS at 0x148.
  constexpr std::uint32_t acs_offset = 0x148;
  put_le(config, 0x100, extended_header(0x0001, acs_control ? acs_offset : 0), 4);
  if (acs_control) {
    put_le(config, acs_offset, extended_header(0x000D, 0), 4);
    put_le(config, acs_offset + 4, 0x005f, 2);  // ACS capability: SV TB RR CR UF EC supported
    put_le(config, acs_offset + 6, *acs_control, 2);
  }
  return config;
}

fs::path SysfsTree::device_dir(const std::string& pci_address) const {
  const fs::path link = root_ / "sys/bus/pci/devices" / pci_address;
  return link.parent_path() / fs::read_symlink(link);
}

void SysfsTree::add_pci_function(const PciFunctionSpec& spec) {
  const fs::path parent = spec.parent_bridge.empty()
                              ? root_ / "sys/devices" / ("pci" + spec.address.substr(0, spec.address.rfind(':')))
                              : device_dir(spec.parent_bridge);
  const fs::path dir = (parent / spec.address).lexically_normal();
  fs::create_directories(dir);
  write_text(dir / "class", fmt::format("0x{:06x}\n", spec.pci_class));
  write_text(dir / "vendor", fmt::format("0x{:04x}\n", spec.vendor));
  write_text(dir / "device", fmt::format("0x{:04x}\n", spec.device));
  write_text(dir / "numa_node", fmt::format("{}\n", spec.numa_node));
  if (spec.link) {
    write_text(dir / "current_link_speed", spec.link->current_speed + "\n");
    write_text(dir / "current_link_width", fmt::format("{}\n", spec.link->current_width_lanes));
    write_text(dir / "max_link_speed", spec.link->max_speed + "\n");
    write_text(dir / "max_link_width", fmt::format("{}\n", spec.link->max_width_lanes));
  }
  const std::vector<std::uint8_t> config = config_space_with_acs(spec.vendor, spec.device, spec.acs_control);
  write_text(dir / "config", std::string(config.begin(), config.end()));
  link_relative(root_ / "sys/bus/pci/devices" / spec.address, dir);
}

void SysfsTree::add_net_device(const std::string& name, const std::string& pci_address) {
  const fs::path function_dir = device_dir(pci_address).lexically_normal();
  const fs::path dir = function_dir / "net" / name;
  fs::create_directories(dir);
  link_relative(dir / "device", function_dir);
  write_text(dir / "operstate", "up\n");
  link_relative(root_ / "sys/class/net" / name, dir);
}

void SysfsTree::add_virtual_net_device(const std::string& name) {
  const fs::path dir = root_ / "sys/devices/virtual/net" / name;
  fs::create_directories(dir);
  link_relative(root_ / "sys/class/net" / name, dir);
}

void SysfsTree::add_rdma_device(const std::string& name, const std::string& pci_address,
                                const std::vector<IbPortFiles>& ports) {
  const fs::path function_dir = device_dir(pci_address).lexically_normal();
  const fs::path dir = function_dir / "infiniband" / name;
  fs::create_directories(dir);
  link_relative(dir / "device", function_dir);
  for (std::size_t i = 0; i < ports.size(); ++i) {
    const fs::path port_dir = dir / "ports" / std::to_string(i + 1);
    write_text(port_dir / "state", ports[i].state + "\n");
    write_text(port_dir / "phys_state", ports[i].physical_state + "\n");
    write_text(port_dir / "rate", ports[i].rate + "\n");
    write_text(port_dir / "link_layer", ports[i].link_layer + "\n");
    for (const auto& [file, contents] : ports[i].counters) write_text(port_dir / "counters" / file, contents + "\n");
    for (const auto& [file, contents] : ports[i].hw_counters)
      write_text(port_dir / "hw_counters" / file, contents + "\n");
  }
  link_relative(root_ / "sys/class/infiniband" / name, dir);
}

void SysfsTree::write_file(const fs::path& absolute_path, const std::string& contents) {
  write_text(root_ / absolute_path.relative_path(), contents);
}

std::string gpu_address(int pair) { return address_on(root_bus(pair) + 3, 0); }
std::string nic_address(int pair) { return address_on(root_bus(pair) + 4, 0); }
std::string gpu_switch_port_address(int pair) { return address_on(root_bus(pair) + 2, 0); }

HostSpec healthy_host_spec() {
  HostSpec spec;
  for (int pair = 0; pair < pairs; ++pair) {
    const int numa_node = pair < pairs / 2 ? 0 : 1;
    spec.gpus.push_back({gpu_address(pair), gpu_switch_port_address(pair), 0x030200, 0x10de, 0x2330, numa_node,
                         PciLinkFiles{}, std::nullopt});
    spec.nics.push_back({nic_address(pair), nic_switch_port_address(pair), 0x020700, 0x15b3, 0x1021, numa_node,
                         PciLinkFiles{}, std::nullopt});
    spec.ports.emplace_back();
    // ACS present but off, as NVIDIA asks for on GPU systems.
    spec.switch_acs.emplace_back(std::uint16_t{0});
  }
  return spec;
}

void build_host(SysfsTree& tree, const HostSpec& spec) {
  // The bridges of every pair exist even where a test removed the pair's GPU.
  for (std::size_t pair = 0; pair < spec.switch_acs.size(); ++pair) {
    const int index = static_cast<int>(pair);
    const int numa_node = index < pairs / 2 ? 0 : 1;
    tree.add_pci_function(
        {root_port_address(index), "", bridge_class, 0x8086, 0x352a, numa_node, PciLinkFiles{}, std::uint16_t{0}});
    tree.add_pci_function({switch_upstream_address(index), root_port_address(index), bridge_class, 0x1000, 0xc030,
                           numa_node, PciLinkFiles{}, std::nullopt});
    tree.add_pci_function({gpu_switch_port_address(index), switch_upstream_address(index), bridge_class, 0x1000, 0xc030,
                           numa_node, PciLinkFiles{}, spec.switch_acs[pair]});
    tree.add_pci_function({nic_switch_port_address(index), switch_upstream_address(index), bridge_class, 0x1000, 0xc030,
                           numa_node, PciLinkFiles{}, std::uint16_t{0}});
  }
  for (const PciFunctionSpec& gpu : spec.gpus) {
    tree.add_pci_function(gpu);
    tree.write_file(fmt::format("/proc/driver/nvidia/gpus/{}/information", gpu.address),
                    "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 123\nBus Type: \t PCIe\n");
  }
  for (std::size_t i = 0; i < spec.nics.size(); ++i) {
    tree.add_pci_function(spec.nics[i]);
    tree.add_net_device(fmt::format("ib{}", i), spec.nics[i].address);
    tree.add_rdma_device(fmt::format("mlx5_{}", i), spec.nics[i].address, {spec.ports[i]});
  }
  tree.add_virtual_net_device("lo");
  tree.write_file("/proc/driver/nvidia/version",
                  fmt::format("NVRM version: NVIDIA UNIX x86_64 Kernel Module  {}  Tue Mar  5 22:15:33 UTC 2024\n"
                              "GCC version:  gcc version 12.3.0\n",
                              spec.driver_version));
  tree.write_file("/sys/module/nvidia/version", spec.driver_version + "\n");
  if (spec.nvidia_peermem_loaded) tree.write_file("/sys/module/nvidia_peermem/refcnt", "0\n");
  tree.write_file("/proc/sys/kernel/osrelease", "5.15.0-91-generic\n");
  tree.write_file("/usr/local/cuda/version.json", R"({"cuda": {"name": "CUDA SDK", "version": "12.4.1"}})");
  tree.write_file("/usr/lib/x86_64-linux-gnu/libnccl.so." + spec.nccl_version, "");
  fs::create_symlink("libnccl.so." + spec.nccl_version, tree.root() / "usr/lib/x86_64-linux-gnu/libnccl.so.2");
}

}  // namespace fb::testing
