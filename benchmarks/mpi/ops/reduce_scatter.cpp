#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/send_recv_case.hpp"

namespace fb {
namespace {

template <class T>
class ReduceScatterCase final : public SendRecvCase<T> {
 public:
  // MPI's in-place reduce-scatter reads the whole input from the receive buffer and leaves the
  // rank's block at its start.
  ReduceScatterCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : SendRecvCase<T>(benchmark_case, context, whole_buffer(benchmark_case, context),
                        benchmark_case.placement == Placement::in_place ? whole_buffer(benchmark_case, context)
                                                                        : benchmark_case.count) {}

  void run_iteration() override {
    FB_MPI_CHECK(MPI_Reduce_scatter_block(this->send_argument(), this->recv_.data(), this->count(), this->datatype(),
                                          mpi_op_of(this->case_.redop), this->context_.comm));
  }

  std::uint64_t count_wrong() const override {
    const std::uint64_t block_start = static_cast<std::uint64_t>(this->context_.rank) * this->case_.count;
    return fb::count_wrong(this->recv_.span().first(this->case_.count), [&](std::uint64_t i) {
      return expected_reduction<T>(this->context_.nranks, block_start + i, this->case_.redop);
    });
  }

 private:
  static std::size_t whole_buffer(const BenchmarkCase& benchmark_case, const MpiOpContext& context) {
    return benchmark_case.count * static_cast<std::uint64_t>(context.nranks);
  }
};

const Registrar<MpiOpImplementation> registrar{
    {"reduce_scatter", {Placement::out_of_place, Placement::in_place}, make_typed_case<ReduceScatterCase>}};

}  // namespace
}  // namespace fb
