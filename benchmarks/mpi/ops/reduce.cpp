#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/send_recv_case.hpp"

namespace fb {
namespace {

// Only the root receives. In place, the root reduces into its own input (MPI_IN_PLACE) and the
// other ranks send the input they hold in the receive buffer.
template <class T>
class ReduceCase final : public SendRecvCase<T> {
 public:
  ReduceCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : SendRecvCase<T>(benchmark_case, context, benchmark_case.count, benchmark_case.count) {}

  void run_iteration() override {
    const bool in_place = this->case_.placement == Placement::in_place;
    const void* send = !in_place   ? static_cast<const void*>(this->send_.data())
                       : is_root() ? MPI_IN_PLACE
                                   : static_cast<const void*>(this->recv_.data());
    FB_MPI_CHECK(MPI_Reduce(send, this->recv_.data(), this->count(), this->datatype(), mpi_op_of(this->case_.redop),
                            this->case_.root, this->context_.comm));
  }

  std::uint64_t count_wrong() const override {
    if (!is_root()) return 0;
    return fb::count_wrong(this->recv_.span(), [&](std::uint64_t i) {
      return expected_reduction<T>(this->context_.nranks, i, this->case_.redop);
    });
  }

 private:
  bool is_root() const { return this->context_.rank == this->case_.root; }
};

const Registrar<MpiOpImplementation> registrar{
    {"reduce", {Placement::out_of_place, Placement::in_place}, make_typed_case<ReduceCase>}};

}  // namespace
}  // namespace fb
