#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/send_recv_case.hpp"

namespace fb {
namespace {

// MPI_Alltoallv with the same count to and from every rank, as OSU's osu_alltoallv runs it.
template <class T>
class AlltoallvCase final : public SendRecvCase<T> {
 public:
  AlltoallvCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : SendRecvCase<T>(benchmark_case, context, benchmark_case.count * static_cast<std::uint64_t>(context.nranks),
                        benchmark_case.count * static_cast<std::uint64_t>(context.nranks)),
        counts_(static_cast<std::size_t>(context.nranks), static_cast<int>(benchmark_case.count)),
        displacements_(static_cast<std::size_t>(context.nranks)) {
    for (std::size_t r = 0; r < displacements_.size(); ++r)
      displacements_[r] = static_cast<int>(r * benchmark_case.count);
  }

  void run_iteration() override {
    FB_MPI_CHECK(MPI_Alltoallv(this->send_.data(), counts_.data(), displacements_.data(), this->datatype(),
                               this->recv_.data(), counts_.data(), displacements_.data(), this->datatype(),
                               this->context_.comm));
  }

  std::uint64_t count_wrong() const override {
    // Block s of the result is block `rank` of rank s's input.
    const std::uint64_t count = this->case_.count;
    const std::uint64_t own_block_start = static_cast<std::uint64_t>(this->context_.rank) * count;
    return fb::count_wrong(this->recv_.span(), [&](std::uint64_t i) {
      return pattern_value<T>(static_cast<int>(i / count), own_block_start + i % count, ReduceOp::sum);
    });
  }

 private:
  std::vector<int> counts_;
  std::vector<int> displacements_;
};

const Registrar<MpiOpImplementation> registrar{
    {"alltoallv", {Placement::out_of_place}, make_typed_case<AlltoallvCase>}};

}  // namespace
}  // namespace fb
