#pragma once
// Every NCCL call goes through FB_NCCL_CHECK: a failure becomes an exception naming the call, the
// source location, NCCL's error string and its last-error detail. ncclInProgress is not a
// failure: it says an operation is still under way (ncclCommFinalize leaves a communicator in
// progress until it is quiescent, nccl.h), and the caller polls ncclCommGetAsyncError for its end.

#include <nccl.h>

#include <stdexcept>

namespace fb {

class NcclError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_nccl_error(ncclResult_t result, const char* call, const char* file, int line);

inline void check_nccl(ncclResult_t result, const char* call, const char* file, int line) {
  if (result != ncclSuccess && result != ncclInProgress) throw_nccl_error(result, call, file, line);
}

}  // namespace fb

#define FB_NCCL_CHECK(call) ::fb::check_nccl((call), #call, __FILE__, __LINE__)
