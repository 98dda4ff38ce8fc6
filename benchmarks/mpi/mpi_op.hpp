#pragma once
// How the MPI backend runs one op. Each op lives in its own file under mpi/ops/ and registers an
// MpiOpImplementation; the backend finds it by the op's catalog name.

#include "benchmarks/core/benchmark_case.hpp"
#include "benchmarks/core/host_pages.hpp"
#include "common/dtype.hpp"
#include "common/registry.hpp"

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace fb {

struct MpiOpContext {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int nranks = 1;
  HostPages host_pages = HostPages::huge;
};

// One prepared case: buffers allocated for a size, type and placement.
class MpiOpCase {
 public:
  virtual ~MpiOpCase() = default;
  // Writes the validation pattern into the inputs (in-place ops overwrite them while timing).
  virtual void fill_inputs() = 0;
  // One timed iteration, returning when this rank's part is complete.
  virtual void run_iteration() = 0;
  // Elements of this rank's output that differ from the expected values after one iteration
  // that started from fill_inputs().
  virtual std::uint64_t count_wrong() const = 0;
  // Timed units (one-way messages for point-to-point ops) in one iteration.
  virtual int units_per_iteration() const { return 1; }
};

using MpiOpFactory = std::function<std::unique_ptr<MpiOpCase>(const BenchmarkCase&, const MpiOpContext&)>;

struct MpiOpImplementation {
  static constexpr std::string_view registry_kind = "MPI op";
  std::string_view name;  // the op's catalog name
  std::vector<Placement> placements;
  MpiOpFactory factory;
};

// Each file under mpi/ops/ registers its op with a Registrar<MpiOpImplementation>.
using MpiOpRegistry = Registry<MpiOpImplementation>;

// Instantiates Case<T> for the case's element type.
template <template <class> class Case>
std::unique_ptr<MpiOpCase> make_typed_case(const BenchmarkCase& benchmark_case, const MpiOpContext& context) {
  return visit_host_type(benchmark_case.dtype, [&]<class T>() -> std::unique_ptr<MpiOpCase> {
    return std::make_unique<Case<T>>(benchmark_case, context);
  });
}

MPI_Datatype mpi_datatype_of(DataType type);
MPI_Op mpi_op_of(ReduceOp op);

}  // namespace fb
