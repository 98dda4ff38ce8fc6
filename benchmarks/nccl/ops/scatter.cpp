#include "common/dtype.hpp"
#include "benchmarks/nccl/nccl_check.hpp"
#include "benchmarks/nccl/nccl_op.hpp"

namespace fb {
namespace {

// NCCL has no scatter: the root sends block r of its buffer to rank r and every rank receives its
// block from the root, all in one group (as nccl-tests' scatter does).
class Scatter final : public NcclCollectiveCase {
 public:
  Scatter(const BenchmarkCase& benchmark_case, const NcclOpContext& context)
      : NcclCollectiveCase(benchmark_case, context) {
    allocate();
  }

 private:
  Layout layout(int rank) const override {
    return {rank == case_.root ? case_.count * static_cast<std::uint64_t>(context_.nranks) : 0, case_.count, 0, 0};
  }
  ExpectedPattern expected(int rank) const override {
    return {.source_rank = case_.root, .first_index = case_.count * static_cast<std::uint64_t>(rank)};
  }
  void call(const NcclGpu& gpu, const void* send, void* recv) const override {
    const ncclDataType_t type = nccl_datatype_of(case_.dtype);
    const std::size_t block_bytes = case_.count * size_in_bytes(case_.dtype);
    FB_NCCL_CHECK(ncclGroupStart());
    if (gpu.rank == case_.root)
      for (int destination = 0; destination < context_.nranks; ++destination)
        FB_NCCL_CHECK(
            ncclSend(static_cast<const unsigned char*>(send) + static_cast<std::size_t>(destination) * block_bytes,
                     case_.count, type, destination, gpu.comm, gpu.stream));
    FB_NCCL_CHECK(ncclRecv(recv, case_.count, type, case_.root, gpu.comm, gpu.stream));
    FB_NCCL_CHECK(ncclGroupEnd());
  }
};

const Registrar<NcclOpImplementation> registrar{{"scatter", {Placement::out_of_place}, make_nccl_case<Scatter>}};

}  // namespace
}  // namespace fb
