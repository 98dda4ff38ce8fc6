#include "core/host_buffer.hpp"
#include "core/pattern.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/mpi_op.hpp"

namespace fb {
namespace {

constexpr int ring_tag = 7;

template <class T>
class SendrecvCase final : public MpiOpCase {
 public:
  SendrecvCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : case_(benchmark_case),
        context_(context),
        next_((context.rank + 1) % context.nranks),
        previous_((context.rank + context.nranks - 1) % context.nranks),
        send_(case_.count),
        recv_(case_.count) {}

  void fill_inputs() override {
    auto& input = case_.placement == Placement::in_place ? recv_ : send_;
    fill_pattern(input.span(), context_.rank, 0, ReduceOp::sum);
  }

  void run_iteration() override {
    const int count = static_cast<int>(case_.count);
    const MPI_Datatype type = mpi_datatype_of(case_.dtype);
    if (case_.placement == Placement::in_place) {
      FB_MPI_CHECK(MPI_Sendrecv_replace(recv_.data(), count, type, next_, ring_tag, previous_, ring_tag,
                                        context_.comm, MPI_STATUS_IGNORE));
    } else {
      FB_MPI_CHECK(MPI_Sendrecv(send_.data(), count, type, next_, ring_tag, recv_.data(), count, type, previous_,
                                ring_tag, context_.comm, MPI_STATUS_IGNORE));
    }
  }

  std::uint64_t count_wrong() const override {
    return fb::count_wrong(recv_.span(),
                           [&](std::uint64_t i) { return pattern_value<T>(previous_, i, ReduceOp::sum); });
  }

 private:
  BenchmarkCase case_;
  MpiOpContext context_;
  int next_;
  int previous_;
  HostBuffer<T> send_;
  HostBuffer<T> recv_;
};

const MpiOpRegistrar registrar{
    {"sendrecv", {Placement::out_of_place, Placement::in_place}, make_typed_case<SendrecvCase>}};

}  // namespace
}  // namespace fb
