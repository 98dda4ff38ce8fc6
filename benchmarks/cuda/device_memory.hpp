#pragma once
// Owning handles for the CUDA objects the GPU backends allocate. Destructors release without
// checking: they also run while an error unwinds, when a second exception would end the process.

#include "benchmarks/cuda/cuda_check.hpp"
#include "benchmarks/cuda/gpu_discovery.hpp"

#include <cstddef>
#include <utility>

namespace fb {

// Makes `device` current for the calling thread until destroyed.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device) {
    FB_CUDA_CHECK(cudaGetDevice(&previous_));
    FB_CUDA_CHECK(cudaSetDevice(device));
  }
  ~ScopedDevice() { cudaSetDevice(previous_); }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
};

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(int device, std::size_t bytes) : bytes_(bytes) {
    const ScopedDevice on(device);
    FB_CUDA_CHECK(cudaMalloc(&data_, bytes == 0 ? 1 : bytes));
  }
  ~DeviceBuffer() {
    if (data_) cudaFree(data_);
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept : data_(std::exchange(other.data_, nullptr)), bytes_(other.bytes_) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Pinned, device-mapped host memory, allocated by a thread running on `numa_cpus` so that its
// pages sit on that NUMA node (the node of the GPU that copies it).
class PinnedHostBuffer {
 public:
  PinnedHostBuffer(std::size_t bytes, const std::vector<int>& numa_cpus) : bytes_(bytes) {
    const ScopedCpuAffinity near_the_gpu(numa_cpus);
    FB_CUDA_CHECK(cudaHostAlloc(&data_, bytes == 0 ? 1 : bytes, cudaHostAllocPortable | cudaHostAllocMapped));
  }
  ~PinnedHostBuffer() {
    if (data_) cudaFreeHost(data_);
  }
  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

class CudaStream {
 public:
  explicit CudaStream(int device) : device_(device) {
    const ScopedDevice on(device);
    FB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~CudaStream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  CudaStream(CudaStream&& other) noexcept : device_(other.device_), stream_(std::exchange(other.stream_, nullptr)) {}
  CudaStream& operator=(CudaStream&&) = delete;

  int device() const { return device_; }
  cudaStream_t get() const { return stream_; }

 private:
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
};

class CudaEvent {
 public:
  explicit CudaEvent(int device) {
    const ScopedDevice on(device);
    FB_CUDA_CHECK(cudaEventCreate(&event_));
  }
  ~CudaEvent() {
    if (event_) cudaEventDestroy(event_);
  }
  CudaEvent(CudaEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&&) = delete;

  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class CudaGraphExec {
 public:
  CudaGraphExec() = default;
  explicit CudaGraphExec(cudaGraph_t graph) {
    const cudaError_t status = cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);
    FB_CUDA_CHECK(status);
  }
  ~CudaGraphExec() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }
  CudaGraphExec(CudaGraphExec&& other) noexcept : exec_(std::exchange(other.exec_, nullptr)) {}
  CudaGraphExec& operator=(CudaGraphExec&&) = delete;

  void launch(cudaStream_t stream) const { FB_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace fb
