#pragma once
// Every CUDA runtime call goes through FB_CUDA_CHECK: a failure becomes an exception naming the
// call, the source location and CUDA's description of the error.

#include <cuda_runtime_api.h>

#include <stdexcept>

namespace fb {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, call, file, line);
}

}  // namespace fb

#define FB_CUDA_CHECK(call) ::fb::check_cuda((call), #call, __FILE__, __LINE__)
