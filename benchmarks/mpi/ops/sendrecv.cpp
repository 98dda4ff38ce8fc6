#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/send_recv_case.hpp"

namespace fb {
namespace {

constexpr int ring_tag = 7;

template <class T>
class SendrecvCase final : public SendRecvCase<T> {
 public:
  SendrecvCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : SendRecvCase<T>(benchmark_case, context, benchmark_case.count, benchmark_case.count),
        next_((context.rank + 1) % context.nranks),
        previous_((context.rank + context.nranks - 1) % context.nranks) {}

  void run_iteration() override {
    if (this->case_.placement == Placement::in_place) {
      FB_MPI_CHECK(MPI_Sendrecv_replace(this->recv_.data(), this->count(), this->datatype(), next_, ring_tag, previous_,
                                        ring_tag, this->context_.comm, MPI_STATUS_IGNORE));
    } else {
      FB_MPI_CHECK(MPI_Sendrecv(this->send_.data(), this->count(), this->datatype(), next_, ring_tag,
                                this->recv_.data(), this->count(), this->datatype(), previous_, ring_tag,
                                this->context_.comm, MPI_STATUS_IGNORE));
    }
  }

  std::uint64_t count_wrong() const override {
    return fb::count_wrong(this->recv_.span(),
                           [&](std::uint64_t i) { return pattern_value<T>(previous_, i, ReduceOp::sum); });
  }

 private:
  int next_;
  int previous_;
};

const Registrar<MpiOpImplementation> registrar{
    {"sendrecv", {Placement::out_of_place, Placement::in_place}, make_typed_case<SendrecvCase>}};

}  // namespace
}  // namespace fb
