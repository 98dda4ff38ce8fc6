#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/send_recv_case.hpp"

namespace fb {
namespace {

template <class T>
class AllReduceCase final : public SendRecvCase<T> {
 public:
  AllReduceCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : SendRecvCase<T>(benchmark_case, context, benchmark_case.count, benchmark_case.count) {}

  void run_iteration() override {
    FB_MPI_CHECK(MPI_Allreduce(this->send_argument(), this->recv_.data(), this->count(), this->datatype(),
                               mpi_op_of(this->case_.redop), this->context_.comm));
  }

  std::uint64_t count_wrong() const override {
    return fb::count_wrong(this->recv_.span(), [&](std::uint64_t i) {
      return expected_reduction<T>(this->context_.nranks, i, this->case_.redop);
    });
  }
};

const Registrar<MpiOpImplementation> registrar{
    {"all_reduce", {Placement::out_of_place, Placement::in_place}, make_typed_case<AllReduceCase>}};

}  // namespace
}  // namespace fb
