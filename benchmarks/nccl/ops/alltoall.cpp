#include "benchmarks/nccl/nccl_check.hpp"
#include "benchmarks/nccl/nccl_op.hpp"

namespace fb {
namespace {

// Block d of rank s's input goes to block s of rank d's output. NCCL has no in-place form.
class Alltoall final : public NcclCollectiveCase {
 public:
  Alltoall(const BenchmarkCase& benchmark_case, const NcclOpContext& context)
      : NcclCollectiveCase(benchmark_case, context) {
    allocate();
  }

 private:
  Layout layout(int) const override {
    const std::uint64_t whole = case_.count * static_cast<std::uint64_t>(context_.nranks);
    return {whole, whole, 0, 0};
  }
  ExpectedPattern expected(int rank) const override {
    return {.source_rank = -1, .block_count = case_.count, .first_index = case_.count * static_cast<std::uint64_t>(rank)};
  }
  void call(const NcclGpu& gpu, const void* send, void* recv) const override {
    FB_NCCL_CHECK(ncclAlltoAll(send, recv, case_.count, nccl_datatype_of(case_.dtype), gpu.comm, gpu.stream));
  }
};

const Registrar<NcclOpImplementation> registrar{{"alltoall", {Placement::out_of_place}, make_nccl_case<Alltoall>}};

}  // namespace
}  // namespace fb
