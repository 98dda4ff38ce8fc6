#include "benchmarks/core/host_buffer.hpp"
#include "benchmarks/core/pattern.hpp"
#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/mpi_op.hpp"

namespace fb {
namespace {

// MPI_Bcast has one buffer, so the MPI backend offers the in-place form only; an out-of-place
// variant would time a local copy on the root that the network never sees.
template <class T>
class BroadcastCase final : public MpiOpCase {
 public:
  BroadcastCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : case_(benchmark_case), context_(context), buffer_(case_.count, context.host_pages) {}

  void fill_inputs() override {
    // Non-root ranks start from their own pattern so a broadcast that never arrives is visible.
    fill_pattern(buffer_.span(), context_.rank, 0, ReduceOp::sum);
  }

  void run_iteration() override {
    FB_MPI_CHECK(MPI_Bcast(buffer_.data(), static_cast<int>(case_.count), mpi_datatype_of(case_.dtype), case_.root,
                           context_.comm));
  }

  std::uint64_t count_wrong() const override {
    return fb::count_wrong(buffer_.span(),
                           [&](std::uint64_t i) { return pattern_value<T>(case_.root, i, ReduceOp::sum); });
  }

 private:
  BenchmarkCase case_;
  MpiOpContext context_;
  HostBuffer<T> buffer_;
};

const Registrar<MpiOpImplementation> registrar{{"broadcast", {Placement::in_place}, make_typed_case<BroadcastCase>}};

}  // namespace
}  // namespace fb
