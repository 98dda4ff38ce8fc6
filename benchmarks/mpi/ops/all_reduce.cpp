#include "core/host_buffer.hpp"
#include "core/pattern.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/mpi_op.hpp"

namespace fb {
namespace {

template <class T>
class AllReduceCase final : public MpiOpCase {
 public:
  AllReduceCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : case_(benchmark_case), context_(context), send_(case_.count), recv_(case_.count) {}

  void fill_inputs() override {
    // In place, the input is the receive buffer.
    auto& input = case_.placement == Placement::in_place ? recv_ : send_;
    fill_pattern(input.span(), context_.rank, 0, case_.redop);
  }

  void run_iteration() override {
    FB_MPI_CHECK(MPI_Allreduce(send_buffer_or_in_place(case_, send_.data()), recv_.data(),
                               static_cast<int>(case_.count), mpi_datatype_of(case_.dtype), mpi_op_of(case_.redop),
                               context_.comm));
  }

  std::uint64_t count_wrong() const override {
    return fb::count_wrong(recv_.span(), [&](std::uint64_t i) {
      return expected_reduction<T>(context_.nranks, i, case_.redop);
    });
  }

 private:
  BenchmarkCase case_;
  MpiOpContext context_;
  HostBuffer<T> send_;
  HostBuffer<T> recv_;
};

const MpiOpRegistrar registrar{
    {"all_reduce", {Placement::out_of_place, Placement::in_place}, make_typed_case<AllReduceCase>}};

}  // namespace
}  // namespace fb
