#include "common/errors.hpp"
#include "benchmarks/cuda/cuda_check.hpp"
#include "benchmarks/cuda/device_pattern.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace fb {
namespace {

// Elements are computed in Value and stored as T: the 16-bit floats have no exact integer
// arithmetic of their own, so their expected values are formed in float, where the pattern's
// sums and products are exact.
template <class T>
struct DeviceElement {
  using Value = T;
  __device__ static T store(Value v) { return v; }
  __device__ static Value load(T v) { return v; }
};
template <>
struct DeviceElement<__half> {
  using Value = float;
  __device__ static __half store(float v) { return __float2half_rn(v); }
  __device__ static float load(__half v) { return __half2float(v); }
};
template <>
struct DeviceElement<__nv_bfloat16> {
  using Value = float;
  __device__ static __nv_bfloat16 store(float v) { return __float2bfloat16_rn(v); }
  __device__ static float load(__nv_bfloat16 v) { return __bfloat162float(v); }
};

constexpr int threads_per_block = 256;
constexpr unsigned max_blocks = 4096;

unsigned blocks_for(std::uint64_t count) {
  const std::uint64_t blocks = (count + threads_per_block - 1) / threads_per_block;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > max_blocks ? max_blocks : blocks));
}

template <class T>
__global__ void fill_kernel(T* buffer, std::uint64_t count, int rank, std::uint64_t first_index, ReduceOp redop) {
  using Element = DeviceElement<T>;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
    buffer[i] = Element::store(pattern_value<typename Element::Value>(rank, first_index + i, redop));
}

template <class T>
__global__ void count_wrong_kernel(const T* buffer, std::uint64_t count, ExpectedPattern expected,
                                   ValidationBound bound, unsigned long long* wrong) {
  using Element = DeviceElement<T>;
  using Value = typename Element::Value;
  unsigned long long local_wrong = 0;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    const Value actual = Element::load(buffer[i]);
    const Value wanted = expected.value_at<Value>(i);
    if constexpr (std::is_same_v<Value, T>)
      local_wrong += actual != wanted ? 1 : 0;  // computed in the type itself: exact
    else
      local_wrong += accepted_value(static_cast<double>(actual), static_cast<double>(wanted), bound) ? 0 : 1;
  }
  if (local_wrong > 0) atomicAdd(wrong, local_wrong);
}

template <class T>
__global__ void reset_kernel(T* buffer, std::uint64_t count, ExpectedPattern expected) {
  using Element = DeviceElement<T>;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
    buffer[i] = Element::store(reset_value_at<typename Element::Value>(expected, i));
}

}  // namespace

void fill_pattern_on_device(void* buffer, DataType type, std::uint64_t count, int rank, std::uint64_t first_index,
                            ReduceOp redop, cudaStream_t stream) {
  if (count == 0) return;
  visit_type<__half, __nv_bfloat16>(type, [&]<class T>() {
    fill_kernel<T>
        <<<blocks_for(count), threads_per_block, 0, stream>>>(static_cast<T*>(buffer), count, rank, first_index, redop);
  });
  FB_CUDA_CHECK(cudaGetLastError());
}

void reset_output_on_device(void* buffer, DataType type, std::uint64_t count, const ExpectedPattern& expected,
                            cudaStream_t stream) {
  if (count == 0) return;
  visit_type<__half, __nv_bfloat16>(type, [&]<class T>() {
    reset_kernel<T><<<blocks_for(count), threads_per_block, 0, stream>>>(static_cast<T*>(buffer), count, expected);
  });
  FB_CUDA_CHECK(cudaGetLastError());
}

std::uint64_t count_wrong_on_device(const void* buffer, DataType type, std::uint64_t count,
                                    const ExpectedPattern& expected, cudaStream_t stream) {
  unsigned long long* wrong_on_device = nullptr;
  FB_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&wrong_on_device), sizeof *wrong_on_device, stream));
  FB_CUDA_CHECK(cudaMemsetAsync(wrong_on_device, 0, sizeof *wrong_on_device, stream));
  const ValidationBound bound = validation_bound(type, expected);
  if (count > 0) {
    visit_type<__half, __nv_bfloat16>(type, [&]<class T>() {
      count_wrong_kernel<T><<<blocks_for(count), threads_per_block, 0, stream>>>(static_cast<const T*>(buffer), count,
                                                                                 expected, bound, wrong_on_device);
    });
    FB_CUDA_CHECK(cudaGetLastError());
  }
  unsigned long long wrong = 0;
  FB_CUDA_CHECK(cudaMemcpyAsync(&wrong, wrong_on_device, sizeof wrong, cudaMemcpyDeviceToHost, stream));
  FB_CUDA_CHECK(cudaFreeAsync(wrong_on_device, stream));
  FB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return wrong;
}

}  // namespace fb
