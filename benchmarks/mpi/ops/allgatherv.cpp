#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/send_recv_case.hpp"

namespace fb {
namespace {

// MPI_Allgatherv with every rank contributing the same count, as OSU's osu_allgatherv runs it:
// the vector interface's cost (counts and displacements, often a different algorithm than
// MPI_Allgather picks) against the same data movement.
template <class T>
class AllGathervCase final : public SendRecvCase<T> {
 public:
  AllGathervCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : SendRecvCase<T>(benchmark_case, context, benchmark_case.count,
                        benchmark_case.count * static_cast<std::uint64_t>(context.nranks)),
        counts_(static_cast<std::size_t>(context.nranks), static_cast<int>(benchmark_case.count)),
        displacements_(static_cast<std::size_t>(context.nranks)) {
    for (std::size_t r = 0; r < displacements_.size(); ++r)
      displacements_[r] = static_cast<int>(r * benchmark_case.count);
  }

  void run_iteration() override {
    FB_MPI_CHECK(MPI_Allgatherv(this->send_.data(), this->count(), this->datatype(), this->recv_.data(), counts_.data(),
                                displacements_.data(), this->datatype(), this->context_.comm));
  }

  std::uint64_t count_wrong() const override {
    const std::uint64_t count = this->case_.count;
    return fb::count_wrong(this->recv_.span(), [&](std::uint64_t i) {
      return pattern_value<T>(static_cast<int>(i / count), i % count, ReduceOp::sum);
    });
  }

 private:
  std::vector<int> counts_;
  std::vector<int> displacements_;
};

const Registrar<MpiOpImplementation> registrar{
    {"allgatherv", {Placement::out_of_place}, make_typed_case<AllGathervCase>}};

}  // namespace
}  // namespace fb
