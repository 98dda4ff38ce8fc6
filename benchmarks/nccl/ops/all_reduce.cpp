#include "benchmarks/nccl/nccl_check.hpp"
#include "benchmarks/nccl/nccl_op.hpp"

namespace fb {
namespace {

class AllReduce final : public NcclCollectiveCase {
 public:
  AllReduce(const BenchmarkCase& benchmark_case, const NcclOpContext& context)
      : NcclCollectiveCase(benchmark_case, context) {
    allocate();
  }

 private:
  Layout layout(int) const override { return {case_.count, case_.count, 0, 0}; }
  ExpectedPattern expected(int) const override { return {.reduced_over_ranks = true}; }
  void call(const NcclGpu& gpu, const void* send, void* recv) const override {
    FB_NCCL_CHECK(ncclAllReduce(send, recv, case_.count, nccl_datatype_of(case_.dtype), nccl_redop_of(case_.redop),
                                gpu.comm, gpu.stream));
  }
};

const Registrar<NcclOpImplementation> registrar{
    {"all_reduce", {Placement::out_of_place, Placement::in_place}, make_nccl_case<AllReduce>}};

}  // namespace
}  // namespace fb
