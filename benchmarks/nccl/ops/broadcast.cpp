#include "benchmarks/nccl/nccl_check.hpp"
#include "benchmarks/nccl/nccl_op.hpp"

namespace fb {
namespace {

class Broadcast final : public NcclCollectiveCase {
 public:
  Broadcast(const BenchmarkCase& benchmark_case, const NcclOpContext& context)
      : NcclCollectiveCase(benchmark_case, context) {
    allocate();
  }

 private:
  Layout layout(int) const override { return {case_.count, case_.count, 0, 0}; }
  ExpectedPattern expected(int) const override { return {.source_rank = case_.root}; }
  void call(const NcclGpu& gpu, const void* send, void* recv) const override {
    FB_NCCL_CHECK(
        ncclBroadcast(send, recv, case_.count, nccl_datatype_of(case_.dtype), case_.root, gpu.comm, gpu.stream));
  }
};

const Registrar<NcclOpImplementation> registrar{
    {"broadcast", {Placement::out_of_place, Placement::in_place}, make_nccl_case<Broadcast>}};

}  // namespace
}  // namespace fb
