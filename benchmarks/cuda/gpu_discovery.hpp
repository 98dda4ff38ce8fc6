#pragma once
// Which GPUs this process sees and where they sit: the GPU backends' view of the machine.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fb {

// The GPUs this process can use. A machine without a driver or without a device is "no GPU here",
// not a failure: throws NoDeviceError saying which, so CPU-only machines skip cleanly.
int require_visible_gpus(std::string_view backend_name, int needed);

struct GpuDescription {
  int ordinal = 0;
  std::string name;        // "NVIDIA H100 80GB HBM3"
  std::string pci_bus_id;  // "0000:1b:00.0", as sysfs spells it
  int numa_node = -1;      // -1: the platform does not say
};

GpuDescription describe_gpu(int ordinal);

// "0-3,8,10-11" (sysfs cpulist syntax) -> {0,1,2,3,8,10,11}. Throws std::invalid_argument.
std::vector<int> parse_cpu_list(std::string_view text);

// The NUMA node sysfs gives a PCI device, -1 when it gives none (single-node machines say -1).
int numa_node_of_pci_device(const std::filesystem::path& sysfs_root, std::string_view pci_bus_id);

// The CPUs of a NUMA node; empty when sysfs does not list the node.
std::vector<int> cpus_of_numa_node(const std::filesystem::path& sysfs_root, int numa_node);

// Runs the calling thread on `cpus` until destroyed (nothing changes when `cpus` is empty), so
// memory it touches first lands on their NUMA node.
class ScopedCpuAffinity {
 public:
  explicit ScopedCpuAffinity(const std::vector<int>& cpus);
  ~ScopedCpuAffinity();
  ScopedCpuAffinity(const ScopedCpuAffinity&) = delete;
  ScopedCpuAffinity& operator=(const ScopedCpuAffinity&) = delete;

 private:
  bool changed_ = false;
  std::vector<unsigned char> saved_mask_;
};

// "CUDA driver 13.0, runtime 13.0" for provenance.
std::string cuda_versions();

}  // namespace fb
