#pragma once
// Builds the parts of a Linux sysfs/procfs tree that `fabricbench doctor` reads, laid out as the
// kernel lays them out: functions nested below their bridges under sys/devices, and sys/bus and
// sys/class entries as relative symlinks into it, so resolving a link stays inside the tree.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fb::testing {

struct PciLinkFiles {
  std::string current_speed = "32.0 GT/s PCIe";
  int current_width_lanes = 16;
  std::string max_speed = "32.0 GT/s PCIe";
  int max_width_lanes = 16;
};

struct PciFunctionSpec {
  std::string address;
  std::string parent_bridge;  // empty: on the root bus
  std::uint32_t pci_class = 0;
  std::uint16_t vendor = 0;
  std::uint16_t device = 0;
  int numa_node = -1;
  std::optional<PciLinkFiles> link;
  // With a value, the config space holds an ACS capability (behind another extended
  // capability, so the list must be walked) with this control register.
  std::optional<std::uint16_t> acs_control;
};

struct IbPortFiles {
  std::string state = "4: ACTIVE";
  std::string physical_state = "5: LinkUp";
  std::string rate = "400 Gb/sec (4X NDR)";
  std::string link_layer = "InfiniBand";
  // File name -> contents of ports/N/counters/ and ports/N/hw_counters/ (text, so that a test can
  // write what a driver that refuses a counter leaves unparsable). The default: a healthy mlx5 IB port.
  std::map<std::string, std::string> counters{{"excessive_buffer_overrun_errors", "0"},
                                              {"link_downed", "0"},
                                              {"link_error_recovery", "0"},
                                              {"local_link_integrity_errors", "0"},
                                              {"port_rcv_constraint_errors", "0"},
                                              {"port_rcv_data", "1822390412"},
                                              {"port_rcv_errors", "0"},
                                              {"port_rcv_packets", "7402112"},
                                              {"port_rcv_remote_physical_errors", "0"},
                                              {"port_xmit_data", "1822388016"},
                                              {"port_xmit_discards", "0"},
                                              {"port_xmit_packets", "7402101"},
                                              {"port_xmit_wait", "12"},
                                              {"symbol_error", "0"},
                                              {"VL15_dropped", "0"}};
  std::map<std::string, std::string> hw_counters{{"duplicate_request", "0"},     {"implied_nak_seq_err", "0"},
                                                 {"local_ack_timeout_err", "0"}, {"out_of_buffer", "0"},
                                                 {"out_of_sequence", "0"},       {"packet_seq_err", "0"},
                                                 {"rnr_nak_retry_err", "0"}};
};

class SysfsTree {
 public:
  explicit SysfsTree(std::filesystem::path root) : root_(std::move(root)) {}

  const std::filesystem::path& root() const { return root_; }

  void add_pci_function(const PciFunctionSpec& spec);
  void add_net_device(const std::string& name, const std::string& pci_address);
  void add_virtual_net_device(const std::string& name);
  void add_rdma_device(const std::string& name, const std::string& pci_address, const std::vector<IbPortFiles>& ports);
  // A file at `absolute_path` ("/proc/driver/nvidia/version") inside the tree.
  void write_file(const std::filesystem::path& absolute_path, const std::string& contents);

 private:
  std::filesystem::path device_dir(const std::string& pci_address) const;

  std::filesystem::path root_;
};

// The configuration space image add_pci_function writes (exposed for the parser's tests).
std::vector<std::uint8_t> config_space_with_acs(std::uint16_t vendor, std::uint16_t device,
                                                std::optional<std::uint16_t> acs_control);

// A DGX-like host: pair i (0-7) is GPU i (an H100) and NIC i (a ConnectX-7 in InfiniBand mode,
// mlx5_i, netdev ibi, one port) behind their own PCIe switch below root port i; pairs 0-3 sit on
// NUMA node 0, 4-7 on node 1. A test changes the spec, then builds it.
struct HostSpec {
  std::vector<PciFunctionSpec> gpus;
  std::vector<PciFunctionSpec> nics;
  std::vector<IbPortFiles> ports;                        // one per NIC
  std::vector<std::optional<std::uint16_t>> switch_acs;  // per pair: the downstream port above the GPU
  std::string driver_version = "550.54.15";
  std::string nccl_version = "2.21.5";
  bool nvidia_peermem_loaded = true;
};

HostSpec healthy_host_spec();
void build_host(SysfsTree& tree, const HostSpec& spec);

// Addresses used by healthy_host_spec for pair `pair`.
std::string gpu_address(int pair);
std::string nic_address(int pair);
std::string gpu_switch_port_address(int pair);  // the downstream switch port directly above the GPU

}  // namespace fb::testing
