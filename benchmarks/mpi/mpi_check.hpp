#pragma once
// Every MPI call goes through FB_MPI_CHECK: a failure becomes an exception that names the call,
// the source location and MPI's own description of the error.

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace fb {

class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void throw_mpi_error(int error_code, const char* call, const char* file, int line);

inline void check_mpi(int error_code, const char* call, const char* file, int line) {
  if (error_code != MPI_SUCCESS) throw_mpi_error(error_code, call, file, line);
}

}  // namespace fb

#define FB_MPI_CHECK(call) ::fb::check_mpi((call), #call, __FILE__, __LINE__)
