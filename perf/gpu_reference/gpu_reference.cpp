// The bare loops fabricbench's GPU backends are measured against in scripts/gpu-check.sh: the
// plainest code that measures the same thing, with nothing of fabricbench in it but the error
// checks. Prints "name value" lines.
//
//   gpu_reference [--bytes N] [--allreduce-bytes N] [--iterations N]

#include "benchmarks/cuda/cuda_check.hpp"
#include "benchmarks/nccl/nccl_check.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

namespace {

// Seconds per iteration of `enqueue` run back to back on `stream`, after one untimed run.
double seconds_per_iteration(cudaStream_t stream, int iterations, const std::function<void()>& enqueue) {
  enqueue();
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  FB_CUDA_CHECK(cudaEventCreate(&start));
  FB_CUDA_CHECK(cudaEventCreate(&stop));
  FB_CUDA_CHECK(cudaEventRecord(start, stream));
  for (int i = 0; i < iterations; ++i) enqueue();
  FB_CUDA_CHECK(cudaEventRecord(stop, stream));
  FB_CUDA_CHECK(cudaEventSynchronize(stop));
  float milliseconds = 0;
  FB_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return milliseconds * 1e-3 / iterations;
}

std::size_t parse_bytes(const char* text) { return static_cast<std::size_t>(std::strtoull(text, nullptr, 10)); }

}  // namespace

int main(int argc, char** argv) {
  std::size_t copy_bytes = std::size_t{1} << 30;
  std::size_t allreduce_bytes = std::size_t{512} << 20;
  int iterations = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--bytes") copy_bytes = parse_bytes(argv[i + 1]);
    else if (flag == "--allreduce-bytes") allreduce_bytes = parse_bytes(argv[i + 1]);
    else if (flag == "--iterations") iterations = std::atoi(argv[i + 1]);
    else {
      fmt::print(stderr, "gpu_reference: unknown flag {}\n", flag);
      return 2;
    }
  }
  try {
    FB_CUDA_CHECK(cudaSetDevice(0));
    cudaStream_t stream = nullptr;
    FB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    void* host = nullptr;
    void* device_a = nullptr;
    void* device_b = nullptr;
    FB_CUDA_CHECK(cudaHostAlloc(&host, copy_bytes, cudaHostAllocDefault));
    FB_CUDA_CHECK(cudaMalloc(&device_a, copy_bytes));
    FB_CUDA_CHECK(cudaMalloc(&device_b, copy_bytes));
    const auto copy_gbps = [&](void* destination, const void* source, double bytes_counted) {
      const double seconds = seconds_per_iteration(stream, iterations, [&] {
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
    const double seconds = seconds_per_iteration(stream, iterations, [&] {
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
