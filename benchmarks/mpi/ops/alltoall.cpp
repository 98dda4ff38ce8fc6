#include "core/host_buffer.hpp"
#include "core/pattern.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/mpi_op.hpp"

namespace fb {
namespace {

template <class T>
class AlltoallCase final : public MpiOpCase {
 public:
  AlltoallCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : case_(benchmark_case),
        context_(context),
        send_(case_.count * static_cast<std::uint64_t>(context.nranks)),
        recv_(send_.size()) {}

  void fill_inputs() override {
    auto& input = case_.placement == Placement::in_place ? recv_ : send_;
    fill_pattern(input.span(), context_.rank, 0, ReduceOp::sum);
  }

  void run_iteration() override {
    FB_MPI_CHECK(MPI_Alltoall(send_buffer_or_in_place(case_, send_.data()), static_cast<int>(case_.count),
                              mpi_datatype_of(case_.dtype), recv_.data(), static_cast<int>(case_.count),
                              mpi_datatype_of(case_.dtype), context_.comm));
  }

  std::uint64_t count_wrong() const override {
    // Block s of the result is block `rank` of rank s's input.
    const std::uint64_t own_block_start = static_cast<std::uint64_t>(context_.rank) * case_.count;
    return fb::count_wrong(recv_.span(), [&](std::uint64_t i) {
      return pattern_value<T>(static_cast<int>(i / case_.count), own_block_start + i % case_.count, ReduceOp::sum);
    });
  }

 private:
  BenchmarkCase case_;
  MpiOpContext context_;
  HostBuffer<T> send_;
  HostBuffer<T> recv_;
};

const MpiOpRegistrar registrar{
    {"alltoall", {Placement::out_of_place, Placement::in_place}, make_typed_case<AlltoallCase>}};

}  // namespace
}  // namespace fb
