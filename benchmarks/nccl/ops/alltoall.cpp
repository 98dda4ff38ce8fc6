#include "benchmarks/nccl/nccl_check.hpp"
#include "benchmarks/nccl/nccl_op.hpp"

#include <fmt/format.h>

// ncclAlltoAll came with NCCL 2.28.3. It is referenced weakly, so the program still starts with an
// older libnccl (a pip wheel, say) and alltoall alone is refused, naming the version it found.
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 3)
#pragma weak ncclAlltoAll
#else
extern "C" ncclResult_t ncclAlltoAll(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                                     ncclComm_t comm, cudaStream_t stream) __attribute__((weak));
#endif

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
    return {.source_rank = -1,
            .block_count = case_.count,
            .first_index = case_.count * static_cast<std::uint64_t>(rank)};
  }
  void call(const NcclGpu& gpu, const void* send, void* recv) const override {
    FB_NCCL_CHECK(ncclAlltoAll(send, recv, case_.count, nccl_datatype_of(case_.dtype), gpu.comm, gpu.stream));
  }
};

std::string missing_alltoall() {
  if (ncclAlltoAll != nullptr) return {};
  int version = 0;
  ncclGetVersion(&version);
  return fmt::format("it needs ncclAlltoAll, NCCL 2.28.3 or later, and this process loaded NCCL {}.{}.{}",
                     version / 10000, version / 100 % 100, version % 100);
}

const Registrar<NcclOpImplementation> registrar{
    {"alltoall", {Placement::out_of_place}, make_nccl_case<Alltoall>, missing_alltoall}};

}  // namespace
}  // namespace fb
