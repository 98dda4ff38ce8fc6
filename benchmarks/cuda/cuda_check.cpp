#include "benchmarks/cuda/cuda_check.hpp"

#include <fmt/format.h>

namespace fb {

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  throw CudaError(code, fmt::format("{} failed at {}:{}: {} ({})", call, file, line, cudaGetErrorString(code),
                                    cudaGetErrorName(code)));
}

}  // namespace fb
