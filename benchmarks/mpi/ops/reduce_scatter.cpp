#include "core/host_buffer.hpp"
#include "core/pattern.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/mpi_op.hpp"

namespace fb {
namespace {

template <class T>
class ReduceScatterCase final : public MpiOpCase {
 public:
  ReduceScatterCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : case_(benchmark_case),
        context_(context),
        send_(case_.count * static_cast<std::uint64_t>(context.nranks)),
        // MPI's in-place reduce-scatter reads the whole input from the receive buffer and leaves
        // the rank's block at its start.
        recv_(case_.placement == Placement::in_place ? send_.size() : case_.count) {}

  void fill_inputs() override {
    auto& input = case_.placement == Placement::in_place ? recv_ : send_;
    fill_pattern(input.span(), context_.rank, 0, case_.redop);
  }

  void run_iteration() override {
    FB_MPI_CHECK(MPI_Reduce_scatter_block(send_buffer_or_in_place(case_, send_.data()), recv_.data(),
                                          static_cast<int>(case_.count), mpi_datatype_of(case_.dtype),
                                          mpi_op_of(case_.redop), context_.comm));
  }

  std::uint64_t count_wrong() const override {
    const std::uint64_t block_start = static_cast<std::uint64_t>(context_.rank) * case_.count;
    return fb::count_wrong(recv_.span().first(case_.count), [&](std::uint64_t i) {
      return expected_reduction<T>(context_.nranks, block_start + i, case_.redop);
    });
  }

 private:
  BenchmarkCase case_;
  MpiOpContext context_;
  HostBuffer<T> send_;
  HostBuffer<T> recv_;
};

const MpiOpRegistrar registrar{
    {"reduce_scatter", {Placement::out_of_place, Placement::in_place}, make_typed_case<ReduceScatterCase>}};

}  // namespace
}  // namespace fb
