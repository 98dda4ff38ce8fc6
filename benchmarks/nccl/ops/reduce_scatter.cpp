#include "benchmarks/nccl/nccl_check.hpp"
#include "benchmarks/nccl/nccl_op.hpp"

namespace fb {
namespace {

// Rank r receives block r of the reduction; in place its output is block r of its own input.
class ReduceScatter final : public NcclCollectiveCase {
 public:
  ReduceScatter(const BenchmarkCase& benchmark_case, const NcclOpContext& context)
      : NcclCollectiveCase(benchmark_case, context) {
    allocate();
  }

 private:
  Layout layout(int rank) const override {
    return {case_.count * static_cast<std::uint64_t>(context_.nranks), case_.count, 0,
            case_.count * static_cast<std::uint64_t>(rank)};
  }
  ExpectedPattern expected(int rank) const override {
    return {.reduced_over_ranks = true, .first_index = case_.count * static_cast<std::uint64_t>(rank)};
  }
  void call(const NcclGpu& gpu, const void* send, void* recv) const override {
    FB_NCCL_CHECK(ncclReduceScatter(send, recv, case_.count, nccl_datatype_of(case_.dtype), nccl_redop_of(case_.redop),
                                    gpu.comm, gpu.stream));
  }
};

const Registrar<NcclOpImplementation> registrar{
    {"reduce_scatter", {Placement::out_of_place, Placement::in_place}, make_nccl_case<ReduceScatter>}};

}  // namespace
}  // namespace fb
