#include "benchmarks/nccl/nccl_check.hpp"
#include "benchmarks/nccl/nccl_op.hpp"

namespace fb {
namespace {

// Only the root receives the reduction; the other ranks have no output to check.
class Reduce final : public NcclCollectiveCase {
 public:
  Reduce(const BenchmarkCase& benchmark_case, const NcclOpContext& context)
      : NcclCollectiveCase(benchmark_case, context) {
    allocate();
  }

 private:
  Layout layout(int rank) const override { return {case_.count, rank == case_.root ? case_.count : 0, 0, 0}; }
  ExpectedPattern expected(int) const override { return {.reduced_over_ranks = true}; }
  void call(const NcclGpu& gpu, const void* send, void* recv) const override {
    FB_NCCL_CHECK(ncclReduce(send, recv, case_.count, nccl_datatype_of(case_.dtype), nccl_redop_of(case_.redop),
                             case_.root, gpu.comm, gpu.stream));
  }
};

const Registrar<NcclOpImplementation> registrar{
    {"reduce", {Placement::out_of_place, Placement::in_place}, make_nccl_case<Reduce>}};

}  // namespace
}  // namespace fb
