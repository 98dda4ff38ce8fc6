#include "benchmarks/mpi/mpi_check.hpp"

#include <fmt/format.h>

namespace fb {

void throw_mpi_error(int error_code, const char* call, const char* file, int line) {
  char description[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(error_code, description, &length) != MPI_SUCCESS) length = 0;
  throw MpiError(fmt::format("{} failed at {}:{}: {}", call, file, line,
                             length > 0 ? std::string(description, static_cast<std::size_t>(length))
                                        : fmt::format("MPI error code {}", error_code)));
}

}  // namespace fb
