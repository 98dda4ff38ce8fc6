#include "benchmarks/nccl/nccl_check.hpp"
#include "benchmarks/nccl/nccl_op.hpp"

namespace fb {
namespace {

// Rank r's buffer lands in block r of every rank's output; in place it already sits there.
class AllGather final : public NcclCollectiveCase {
 public:
  AllGather(const BenchmarkCase& benchmark_case, const NcclOpContext& context)
      : NcclCollectiveCase(benchmark_case, context) {
    allocate();
  }

 private:
  Layout layout(int rank) const override {
    return {case_.count, case_.count * static_cast<std::uint64_t>(context_.nranks),
            case_.count * static_cast<std::uint64_t>(rank), 0};
  }
  ExpectedPattern expected(int) const override { return {.source_rank = -1, .block_count = case_.count}; }
  void call(const NcclGpu& gpu, const void* send, void* recv) const override {
    FB_NCCL_CHECK(ncclAllGather(send, recv, case_.count, nccl_datatype_of(case_.dtype), gpu.comm, gpu.stream));
  }
};

const Registrar<NcclOpImplementation> registrar{
    {"all_gather", {Placement::out_of_place, Placement::in_place}, make_nccl_case<AllGather>}};

}  // namespace
}  // namespace fb
