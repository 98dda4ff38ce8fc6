#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/send_recv_case.hpp"

namespace fb {
namespace {

template <class T>
class AlltoallCase final : public SendRecvCase<T> {
 public:
  AlltoallCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : SendRecvCase<T>(benchmark_case, context, benchmark_case.count * static_cast<std::uint64_t>(context.nranks),
                        benchmark_case.count * static_cast<std::uint64_t>(context.nranks)) {}

  void run_iteration() override {
    FB_MPI_CHECK(MPI_Alltoall(this->send_argument(), this->count(), this->datatype(), this->recv_.data(), this->count(),
                              this->datatype(), this->context_.comm));
  }

  std::uint64_t count_wrong() const override {
    // Block s of the result is block `rank` of rank s's input.
    const std::uint64_t count = this->case_.count;
    const std::uint64_t own_block_start = static_cast<std::uint64_t>(this->context_.rank) * count;
    return fb::count_wrong(this->recv_.span(), [&](std::uint64_t i) {
      return pattern_value<T>(static_cast<int>(i / count), own_block_start + i % count, ReduceOp::sum);
    });
  }
};

const Registrar<MpiOpImplementation> registrar{
    {"alltoall", {Placement::out_of_place, Placement::in_place}, make_typed_case<AlltoallCase>}};

}  // namespace
}  // namespace fb
