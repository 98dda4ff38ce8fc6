#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/send_recv_case.hpp"

namespace fb {
namespace {

template <class T>
class AllGatherCase final : public SendRecvCase<T> {
 public:
  AllGatherCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : SendRecvCase<T>(benchmark_case, context, benchmark_case.count,
                        benchmark_case.count * static_cast<std::uint64_t>(context.nranks)) {}

  void fill_inputs() override {
    // In place, a rank's contribution already sits in its own block of the receive buffer.
    if (this->case_.placement == Placement::out_of_place) return SendRecvCase<T>::fill_inputs();
    const std::size_t own_block_start = static_cast<std::size_t>(this->context_.rank) * this->case_.count;
    fill_pattern(this->recv_.span().subspan(own_block_start, this->case_.count), this->context_.rank, 0, ReduceOp::sum);
  }

  void run_iteration() override {
    FB_MPI_CHECK(MPI_Allgather(this->send_argument(), this->count(), this->datatype(), this->recv_.data(),
                               this->count(), this->datatype(), this->context_.comm));
  }

  std::uint64_t count_wrong() const override {
    const std::uint64_t count = this->case_.count;
    return fb::count_wrong(this->recv_.span(), [&](std::uint64_t i) {
      return pattern_value<T>(static_cast<int>(i / count), i % count, ReduceOp::sum);
    });
  }
};

const Registrar<MpiOpImplementation> registrar{
    {"all_gather", {Placement::out_of_place, Placement::in_place}, make_typed_case<AllGatherCase>}};

}  // namespace
}  // namespace fb
