#include "benchmarks/nccl/nccl_check.hpp"

#include <fmt/format.h>

#include <cstring>

namespace fb {

void throw_nccl_error(ncclResult_t result, const char* call, const char* file, int line) {
  const char* detail = ncclGetLastError(nullptr);
  throw NcclError(fmt::format("{} failed at {}:{}: {}{}{}", call, file, line, ncclGetErrorString(result),
                              detail && std::strlen(detail) > 0 ? ": " : "", detail ? detail : ""));
}

}  // namespace fb
