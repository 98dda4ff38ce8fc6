#include "common/dtype.hpp"
#include "benchmarks/nccl/nccl_check.hpp"
#include "benchmarks/nccl/nccl_op.hpp"

namespace fb {
namespace {

// NCCL has no gather: every rank sends its buffer to the root, which receives block r from rank r,
// all in one group (as nccl-tests' gather does).
class Gather final : public NcclCollectiveCase {
 public:
  Gather(const BenchmarkCase& benchmark_case, const NcclOpContext& context)
      : NcclCollectiveCase(benchmark_case, context) {
    allocate();
  }

 private:
  Layout layout(int rank) const override {
    return {case_.count, rank == case_.root ? case_.count * static_cast<std::uint64_t>(context_.nranks) : 0, 0, 0};
  }
  ExpectedPattern expected(int) const override { return {.source_rank = -1, .block_count = case_.count}; }
  void call(const NcclGpu& gpu, const void* send, void* recv) const override {
    const ncclDataType_t type = nccl_datatype_of(case_.dtype);
    const std::size_t block_bytes = case_.count * size_in_bytes(case_.dtype);
    FB_NCCL_CHECK(ncclGroupStart());
    if (gpu.rank == case_.root)
      for (int source = 0; source < context_.nranks; ++source)
        FB_NCCL_CHECK(ncclRecv(static_cast<unsigned char*>(recv) + static_cast<std::size_t>(source) * block_bytes,
                               case_.count, type, source, gpu.comm, gpu.stream));
    FB_NCCL_CHECK(ncclSend(send, case_.count, type, case_.root, gpu.comm, gpu.stream));
    FB_NCCL_CHECK(ncclGroupEnd());
  }
};

const Registrar<NcclOpImplementation> registrar{{"gather", {Placement::out_of_place}, make_nccl_case<Gather>}};

}  // namespace
}  // namespace fb
