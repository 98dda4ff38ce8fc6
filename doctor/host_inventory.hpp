#pragma once
// What one host offers the fabric, as its kernel reports it in sysfs and procfs: GPUs, NICs,
// InfiniBand/RoCE ports, the PCIe bridges above them, GPUDirect RDMA support, software versions
// and the environment that tunes NCCL and UCX. Collected without MPI or CUDA, so it works on a
// host whose GPU stack is broken, which is when it is needed most.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fb::doctor {

// A PCIe link as trained (current) against what both ends could do (max). A value the kernel does
// not report ("Unknown", or no such file on a device without a PCIe capability) is empty.
struct PciLink {
  std::optional<double> current_speed_gts;
  std::optional<int> current_width_lanes;
  std::optional<double> max_speed_gts;
  std::optional<int> max_width_lanes;

  bool below_max_speed() const;
  bool below_max_width() const;
};

struct Gpu {
  std::string pci_address;       // DDDD:BB:DD.F
  std::string model;             // from /proc/driver/nvidia/gpus, else "10de:DEVICE"
  std::optional<int> numa_node;  // empty where the platform has no NUMA information (-1)
  std::optional<PciLink> link;
  std::vector<std::string> bridges;  // upstream PCIe bridges, nearest first
};

enum class NicKind { ethernet, infiniband };

struct Nic {
  std::string pci_address;
  NicKind kind = NicKind::ethernet;  // from the PCI class: 0x0200 Ethernet, 0x0207 InfiniBand
  std::string vendor_device;         // "15b3:1021"
  std::optional<int> numa_node;
  std::optional<PciLink> link;
  std::vector<std::string> net_devices;   // eth0, ib0: /sys/class/net entries on this function
  std::vector<std::string> rdma_devices;  // mlx5_0: /sys/class/infiniband entries on this function
  // The firmware version its RDMA device reports (/sys/class/infiniband/DEV/fw_ver, "28.39.1002");
  // empty without an RDMA device (an Ethernet-only NIC tells it only through ethtool's ioctl).
  std::string firmware;
  std::vector<std::string> bridges;

  // Carries RDMA traffic (InfiniBand or RoCE): what NCCL's IB transport would use.
  bool rdma_capable() const { return !rdma_devices.empty(); }
  // "mlx5_0 (0000:17:00.0)": how a finding names the NIC to an operator.
  std::string display_name() const;
};

// One port of an RDMA device: /sys/class/infiniband/DEV/ports/N.
struct IbPort {
  std::string rdma_device;
  int port = 0;
  std::string pci_address;     // the function behind the device link, empty if not PCI
  std::string state;           // "ACTIVE", "DOWN", "INIT", ... (the kernel's "4: ACTIVE" without the number)
  std::string physical_state;  // "LinkUp", "Polling", "Disabled", ...
  std::string rate;            // "400 Gb/sec (4X NDR)"
  std::string link_layer;      // "InfiniBand" or "Ethernet" (RoCE)
  // counters/ and hw_counters/ (doctor/port_counters.hpp), as read; cumulative since the counters
  // were last cleared (boot, driver reload, `perfquery -R`).
  std::map<std::string, std::uint64_t> counters;
  // Error counters that grew while the doctor waited --counter-interval; empty without one.
  std::map<std::string, std::uint64_t> errors_grown;

  bool active() const { return state == "ACTIVE"; }
  std::string display_name() const;  // "mlx5_0/1"
};

// A PCIe bridge (root or switch port) above a GPU or NIC, with its Access Control Services
// setting. ACS redirection sends peer-to-peer traffic up to the root complex, which breaks or
// slows GPUDirect P2P and GPUDirect RDMA between devices below the bridge.
struct PcieBridge {
  std::string pci_address;
  // Whether the extended configuration space (past 0x100) could be read: the kernel shows only
  // the first 64 bytes to unprivileged readers, so without root ACS cannot be checked.
  bool extended_config_readable = false;
  std::optional<std::uint16_t> acs_control;  // empty when the bridge has no ACS capability
  std::vector<std::string> devices_below;    // the GPUs and NICs of this inventory below it
};

// What decides whether a NIC can DMA straight into GPU memory.
struct GpuDirectRdma {
  bool nvidia_peermem_loaded = false;  // /sys/module/nvidia_peermem (driver >= 470)
  bool nv_peer_mem_loaded = false;     // /sys/module/nv_peer_mem (the older Mellanox module)
  bool open_kernel_module = false;     // the open NVIDIA kernel module, required for dma-buf
  std::string kernel_release;          // dma-buf import by RDMA devices needs Linux >= 5.12

  bool dma_buf_possible() const;
  bool possible() const { return nvidia_peermem_loaded || nv_peer_mem_loaded || dma_buf_possible(); }
};

// A version and the file it was read from (empty version: not found).
struct DetectedVersion {
  std::string version;
  std::string source;
};

struct SoftwareVersions {
  DetectedVersion nvidia_driver;
  DetectedVersion cuda;
  DetectedVersion nccl;
  DetectedVersion mpi_library;  // filled by the command, which may call MPI
};

// The processors and memory of a host, from /proc/cpuinfo and /proc/meminfo: what an acceptance
// record lists beside the devices. Empty where the files are missing (a prepared tree without them).
struct HostResources {
  std::string cpu_model;                      // "model name" of the first processor
  int cpu_threads = 0;                        // processors the kernel lists (hardware threads)
  std::optional<std::uint64_t> memory_bytes;  // MemTotal
  std::string os;                             // PRETTY_NAME of /etc/os-release ("Ubuntu 24.04.1 LTS")
};

struct HostInventory {
  std::string host;
  HostResources resources;
  std::vector<Gpu> gpus;
  std::vector<Nic> nics;
  std::vector<IbPort> ib_ports;
  std::vector<PcieBridge> bridges;
  GpuDirectRdma gpudirect_rdma;
  SoftwareVersions versions;
  std::map<std::string, std::string> environment;  // NCCL_*, UCX_* and the other tuning variables
  double counter_interval_s = 0;                   // how long the port counters were watched; 0: read once
};

// Reads every path joined under `sysfs_root` ("/" for this host; a directory holding sys/, proc/
// and usr/ for a prepared tree). Files that are missing or unreadable leave their fields empty;
// throws std::runtime_error only when `sysfs_root`/sys/bus/pci/devices does not exist.
HostInventory collect_host_inventory(const std::filesystem::path& sysfs_root);

// Reads the RDMA port counters again and records in each port which error counters grew since
// `inventory` was collected, over `interval_s` seconds (the caller waited that long).
void record_port_counter_growth(HostInventory& inventory, const std::filesystem::path& sysfs_root, double interval_s);

// "DDDD:BB:DD.F" (the domain may have more than four digits, as behind Intel VMD).
bool is_pci_address(std::string_view name);

// "16.0 GT/s PCIe" -> 16.0; "Unknown" or text without a number -> empty.
std::optional<double> parse_link_speed_gts(std::string_view text);

}  // namespace fb::doctor
