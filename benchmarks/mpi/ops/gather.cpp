#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/send_recv_case.hpp"

namespace fb {
namespace {

// The root receives every rank's buffer, block r from rank r.
template <class T>
class GatherCase final : public SendRecvCase<T> {
 public:
  GatherCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : SendRecvCase<T>(benchmark_case, context, benchmark_case.count,
                        context.rank == benchmark_case.root
                            ? benchmark_case.count * static_cast<std::uint64_t>(context.nranks)
                            : 0) {}

  void run_iteration() override {
    FB_MPI_CHECK(MPI_Gather(this->send_.data(), this->count(), this->datatype(), this->recv_.data(), this->count(),
                            this->datatype(), this->case_.root, this->context_.comm));
  }

  std::uint64_t count_wrong() const override {
    const std::uint64_t count = this->case_.count;
    return fb::count_wrong(this->recv_.span(), [&](std::uint64_t i) {
      return pattern_value<T>(static_cast<int>(i / count), i % count, ReduceOp::sum);
    });
  }
};

const Registrar<MpiOpImplementation> registrar{{"gather", {Placement::out_of_place}, make_typed_case<GatherCase>}};

}  // namespace
}  // namespace fb
