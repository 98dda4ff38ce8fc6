#include "benchmarks/cuda/copy_kernel.hpp"
#include "benchmarks/cuda/cuda_check.hpp"

#include <cstdint>

namespace fb {
namespace {

constexpr int copy_threads_per_block = 512;
constexpr int copy_blocks_per_sm = 4;

// 16-byte accesses for the aligned bulk, single bytes for the tail and for unaligned buffers
// (every allocation the backends make is aligned; a byte loop keeps odd sizes correct).
__global__ void copy_kernel(unsigned char* destination, const unsigned char* source, std::size_t bytes) {
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const bool aligned =
      (reinterpret_cast<std::uintptr_t>(destination) | reinterpret_cast<std::uintptr_t>(source)) % sizeof(uint4) == 0;
  std::size_t done = 0;
  if (aligned) {
    const std::size_t vectors = bytes / sizeof(uint4);
    auto* destination_vectors = reinterpret_cast<uint4*>(destination);
    const auto* source_vectors = reinterpret_cast<const uint4*>(source);
    for (std::size_t i = thread; i < vectors; i += stride) destination_vectors[i] = source_vectors[i];
    done = vectors * sizeof(uint4);
  }
  for (std::size_t i = done + thread; i < bytes; i += stride) destination[i] = source[i];
}

}  // namespace

void launch_copy_kernel(void* destination, const void* source, std::size_t bytes, unsigned blocks,
                        cudaStream_t stream) {
  copy_kernel<<<blocks, copy_threads_per_block, 0, stream>>>(static_cast<unsigned char*>(destination),
                                                             static_cast<const unsigned char*>(source), bytes);
  FB_CUDA_CHECK(cudaGetLastError());
}

unsigned copy_kernel_blocks(int device) {
  int sm_count = 0;
  FB_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  return static_cast<unsigned>(sm_count * copy_blocks_per_sm);
}

}  // namespace fb
