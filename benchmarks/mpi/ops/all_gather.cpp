#include "core/host_buffer.hpp"
#include "core/pattern.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/mpi_op.hpp"

namespace fb {
namespace {

template <class T>
class AllGatherCase final : public MpiOpCase {
 public:
  AllGatherCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : case_(benchmark_case),
        context_(context),
        send_(case_.count),
        recv_(case_.count * static_cast<std::uint64_t>(context.nranks)) {}

  void fill_inputs() override {
    // In place, a rank's contribution already sits in its own block of the receive buffer.
    auto input = case_.placement == Placement::in_place ? own_block() : send_.span();
    fill_pattern(input, context_.rank, 0, ReduceOp::sum);
  }

  void run_iteration() override {
    FB_MPI_CHECK(MPI_Allgather(send_buffer_or_in_place(case_, send_.data()), static_cast<int>(case_.count),
                               mpi_datatype_of(case_.dtype), recv_.data(), static_cast<int>(case_.count),
                               mpi_datatype_of(case_.dtype), context_.comm));
  }

  std::uint64_t count_wrong() const override {
    return fb::count_wrong(recv_.span(), [&](std::uint64_t i) {
      return pattern_value<T>(static_cast<int>(i / case_.count), i % case_.count, ReduceOp::sum);
    });
  }

 private:
  std::span<T> own_block() { return recv_.span().subspan(static_cast<std::size_t>(context_.rank) * case_.count, case_.count); }

  BenchmarkCase case_;
  MpiOpContext context_;
  HostBuffer<T> send_;
  HostBuffer<T> recv_;
};

const MpiOpRegistrar registrar{
    {"all_gather", {Placement::out_of_place, Placement::in_place}, make_typed_case<AllGatherCase>}};

}  // namespace
}  // namespace fb
