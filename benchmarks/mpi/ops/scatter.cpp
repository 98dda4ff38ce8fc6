#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/send_recv_case.hpp"

namespace fb {
namespace {

// Rank r receives block r of the root's buffer.
template <class T>
class ScatterCase final : public SendRecvCase<T> {
 public:
  ScatterCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : SendRecvCase<T>(benchmark_case, context,
                        context.rank == benchmark_case.root
                            ? benchmark_case.count * static_cast<std::uint64_t>(context.nranks)
                            : 0,
                        benchmark_case.count) {}

  void fill_inputs() override {
    SendRecvCase<T>::fill_inputs();
    // A block that never arrives keeps a value no root could have sent.
    fill_pattern(this->recv_.span(), this->context_.nranks + this->context_.rank, 0, ReduceOp::sum);
  }

  void run_iteration() override {
    FB_MPI_CHECK(MPI_Scatter(this->send_.data(), this->count(), this->datatype(), this->recv_.data(), this->count(),
                             this->datatype(), this->case_.root, this->context_.comm));
  }

  std::uint64_t count_wrong() const override {
    const std::uint64_t own_block_start = static_cast<std::uint64_t>(this->context_.rank) * this->case_.count;
    return fb::count_wrong(this->recv_.span(), [&](std::uint64_t i) {
      return pattern_value<T>(this->case_.root, own_block_start + i, ReduceOp::sum);
    });
  }
};

const Registrar<MpiOpImplementation> registrar{{"scatter", {Placement::out_of_place}, make_typed_case<ScatterCase>}};

}  // namespace
}  // namespace fb
