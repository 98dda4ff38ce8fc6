#include "benchmarks/cuda/gpu_discovery.hpp"

#include "common/errors.hpp"
#include "benchmarks/cuda/cuda_check.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace fb {
namespace {

int parse_int(std::string_view text, std::string_view whole) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0)
    throw std::invalid_argument(fmt::format("'{}' is not a CPU list", whole));
  return value;
}

std::string read_first_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

int require_visible_gpus(std::string_view backend_name, int needed) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  // Without a driver the runtime says cudaErrorInsufficientDriver, not cudaErrorNoDevice; both
  // mean there is nothing to run on here.
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver || status == cudaErrorNotPermitted)
    throw NoDeviceError(fmt::format("the {} backend needs a GPU and this machine has none usable ({})", backend_name,
                                    cudaGetErrorString(status)));
  FB_CUDA_CHECK(status);
  if (count < needed)
    throw NoDeviceError(
        fmt::format("the {} backend needs {} GPUs in this process and it sees {}", backend_name, needed, count));
  return count;
}

GpuDescription describe_gpu(int ordinal) {
  cudaDeviceProp properties{};
  FB_CUDA_CHECK(cudaGetDeviceProperties(&properties, ordinal));
  char bus_id[32] = {};
  FB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal));
  GpuDescription gpu;
  gpu.ordinal = ordinal;
  gpu.name = properties.name;
  gpu.pci_bus_id = bus_id;
  std::transform(gpu.pci_bus_id.begin(), gpu.pci_bus_id.end(), gpu.pci_bus_id.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  gpu.numa_node = numa_node_of_pci_device("/sys", gpu.pci_bus_id);
  return gpu;
}

std::vector<int> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  const std::string_view whole = text;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const std::size_t dash = item.find('-');
    const int first = parse_int(item.substr(0, dash), whole);
    const int last = dash == std::string_view::npos ? first : parse_int(item.substr(dash + 1), whole);
    if (last < first) throw std::invalid_argument(fmt::format("'{}' is not a CPU list", whole));
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return cpus;
}

int numa_node_of_pci_device(const std::filesystem::path& sysfs_root, std::string_view pci_bus_id) {
  const std::string text = read_first_line(sysfs_root / "bus/pci/devices" / std::string(pci_bus_id) / "numa_node");
  int node = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), node);
  return error == std::errc() && end != text.data() ? node : -1;
}

std::vector<int> cpus_of_numa_node(const std::filesystem::path& sysfs_root, int numa_node) {
  if (numa_node < 0) return {};
  const std::string text =
      read_first_line(sysfs_root / "devices/system/node" / fmt::format("node{}", numa_node) / "cpulist");
  return text.empty() ? std::vector<int>{} : parse_cpu_list(text);
}

ScopedCpuAffinity::ScopedCpuAffinity(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  cpu_set_t saved;
  if (sched_getaffinity(0, sizeof saved, &saved) != 0) return;
  cpu_set_t wanted;
  CPU_ZERO(&wanted);
  for (int cpu : cpus)
    if (cpu < CPU_SETSIZE) CPU_SET(cpu, &wanted);
  // A node whose CPUs this process may not use (a cgroup limit) keeps the memory wherever it lands.
  if (sched_setaffinity(0, sizeof wanted, &wanted) != 0) return;
  saved_mask_.resize(sizeof saved);
  std::memcpy(saved_mask_.data(), &saved, sizeof saved);
  changed_ = true;
}

ScopedCpuAffinity::~ScopedCpuAffinity() {
  if (!changed_) return;
  cpu_set_t saved;
  std::memcpy(&saved, saved_mask_.data(), sizeof saved);
  sched_setaffinity(0, sizeof saved, &saved);
}

std::string cuda_versions() {
  int driver = 0;
  int runtime = 0;
  FB_CUDA_CHECK(cudaDriverGetVersion(&driver));
  FB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  return fmt::format("driver {}.{}, runtime {}.{}", driver / 1000, driver % 1000 / 10, runtime / 1000,
                     runtime % 1000 / 10);
}

}  // namespace fb
