// The bare loops fabricbench's GPU backends are measured against in scripts/gpu-check.sh: the
// plainest code that measures the same thing, with nothing of fabricbench in it but the error
// checks, and measured the way fabricbench measures so that a ratio off 1 is fabricbench's own
// cost: the same warm-ups (5 untimed), CUDA events around every iteration and the median of the
// per-iteration times, pinned host memory allocated (cudaHostAllocPortable | Mapped) by a thread
// on the GPU's NUMA node. Prints "name value" lines.
//
//   gpu_reference [--bytes N] [--allreduce-bytes N] [--iterations N] [--warmups N]
//
// The all_reduce runs on one GPU: with one rank NCCL's all_reduce is a device copy, so it checks
// the harness around ncclAllReduce, not NCCL's collective kernels.

#include "benchmarks/cuda/cuda_check.hpp"
#include "benchmarks/nccl/nccl_check.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

// Median seconds of `iterations` runs of `enqueue`, each between its own pair of events, after
// `warmups` untimed runs, all enqueued back to back on `stream`.
double median_seconds(cudaStream_t stream, int warmups, int iterations, const std::function<void()>& enqueue) {
  for (int i = 0; i < warmups; ++i) enqueue();
  FB_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<cudaEvent_t> starts(static_cast<std::size_t>(iterations));
  std::vector<cudaEvent_t> stops(starts.size());
  for (std::size_t i = 0; i < starts.size(); ++i) {
    FB_CUDA_CHECK(cudaEventCreate(&starts[i]));
    FB_CUDA_CHECK(cudaEventCreate(&stops[i]));
  }
  for (std::size_t i = 0; i < starts.size(); ++i) {
    FB_CUDA_CHECK(cudaEventRecord(starts[i], stream));
    enqueue();
    FB_CUDA_CHECK(cudaEventRecord(stops[i], stream));
  }
  FB_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> seconds;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    float milliseconds = 0;
    FB_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, starts[i], stops[i]));
    seconds.push_back(static_cast<double>(milliseconds) * 1e-3);
    cudaEventDestroy(starts[i]);
    cudaEventDestroy(stops[i]);
  }
  std::sort(seconds.begin(), seconds.end());
  const std::size_t middle = seconds.size() / 2;
  return seconds.size() % 2 ? seconds[middle] : (seconds[middle - 1] + seconds[middle]) / 2;
}

// Pins this thread to the CPUs of GPU 0's NUMA node (sysfs), so that the pinned host buffer is
// allocated there; a machine that does not say leaves the thread where it is.
void run_near_gpu0() {
  char bus_id[32] = {};
  FB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, 0));
  std::string pci = bus_id;
  std::transform(pci.begin(), pci.end(), pci.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  int node = -1;
  std::ifstream(fmt::format("/sys/bus/pci/devices/{}/numa_node", pci)) >> node;
  if (node < 0) return;
  std::string list;
  std::ifstream(fmt::format("/sys/devices/system/node/node{}/cpulist", node)) >> list;
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (std::size_t at = 0; at < list.size();) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string range = list.substr(at, comma - at);
    const std::size_t dash = range.find('-');
    const int first = std::stoi(range.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
    for (int cpu = first; cpu <= last; ++cpu) CPU_SET(cpu, &cpus);
    at = comma + 1;
  }
  sched_setaffinity(0, sizeof cpus, &cpus);
}

std::size_t parse_bytes(const char* text) { return static_cast<std::size_t>(std::strtoull(text, nullptr, 10)); }

}  // namespace

int main(int argc, char** argv) {
  std::size_t copy_bytes = std::size_t{1} << 30;
  std::size_t allreduce_bytes = std::size_t{512} << 20;
  int iterations = 20;
  int warmups = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--bytes")
      copy_bytes = parse_bytes(argv[i + 1]);
    else if (flag == "--allreduce-bytes")
      allreduce_bytes = parse_bytes(argv[i + 1]);
    else if (flag == "--iterations")
      iterations = std::atoi(argv[i + 1]);
    else if (flag == "--warmups")
      warmups = std::atoi(argv[i + 1]);
    else {
      fmt::print(stderr, "gpu_reference: unknown flag {}\n", flag);
      return 2;
    }
  }
  if (iterations < 1 || warmups < 0) {
    fmt::print(stderr, "gpu_reference: --iterations must be at least 1 and --warmups at least 0\n");
    return 2;
  }
  try {
    FB_CUDA_CHECK(cudaSetDevice(0));
    run_near_gpu0();
    cudaStream_t stream = nullptr;
    FB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    void* host = nullptr;
    void* device_a = nullptr;
    void* device_b = nullptr;
    FB_CUDA_CHECK(cudaHostAlloc(&host, copy_bytes, cudaHostAllocPortable | cudaHostAllocMapped));
    FB_CUDA_CHECK(cudaMalloc(&device_a, copy_bytes));
    FB_CUDA_CHECK(cudaMalloc(&device_b, copy_bytes));
    const auto copy_gbps = [&](void* destination, const void* source, double bytes_counted) {
      const double seconds = median_seconds(stream, warmups, iterations, [&] {
        FB_CUDA_CHECK(cudaMemcpyAsync(destination, source, copy_bytes, cudaMemcpyDefault, stream));
      });
      return bytes_counted / seconds / 1e9;
    };
    const double bytes = static_cast<double>(copy_bytes);
    fmt::print("h2d_gbps {:.2f}\n", copy_gbps(device_a, host, bytes));
    fmt::print("d2h_gbps {:.2f}\n", copy_gbps(host, device_a, bytes));
    fmt::print("local_gbps {:.2f}\n", copy_gbps(device_b, device_a, 2 * bytes));  // read + write
    cudaFreeHost(host);
    cudaFree(device_a);
    cudaFree(device_b);

    ncclComm_t comm = nullptr;
    const int devices[] = {0};
    FB_NCCL_CHECK(ncclCommInitAll(&comm, 1, devices));
    const std::size_t count = allreduce_bytes / sizeof(float);
    FB_CUDA_CHECK(cudaMalloc(&device_a, allreduce_bytes));
    FB_CUDA_CHECK(cudaMalloc(&device_b, allreduce_bytes));
    const double seconds = median_seconds(stream, warmups, iterations, [&] {
      FB_NCCL_CHECK(ncclAllReduce(device_a, device_b, count, ncclFloat32, ncclSum, comm, stream));
    });
    fmt::print("all_reduce_us {:.2f}\n", seconds * 1e6);
    fmt::print("all_reduce_algbw_gbps {:.2f}\n", static_cast<double>(allreduce_bytes) / seconds / 1e9);
    ncclCommDestroy(comm);
    cudaFree(device_a);
    cudaFree(device_b);
    cudaStreamDestroy(stream);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpu_reference: {}\n", e.what());
    return 3;
  }
  return 0;
}
