#include "benchmarks/nccl/nccl_check.hpp"
#include "benchmarks/nccl/nccl_op.hpp"

namespace fb {
namespace {

// Ring neighbour exchange: send to rank+1, receive from rank-1 (itself with one rank). NCCL
// cannot send from and receive into one buffer at once, so there is no in-place form.
class Sendrecv final : public NcclCollectiveCase {
 public:
  Sendrecv(const BenchmarkCase& benchmark_case, const NcclOpContext& context)
      : NcclCollectiveCase(benchmark_case, context) {
    allocate();
  }

 private:
  int next(int rank) const { return (rank + 1) % context_.nranks; }
  int previous(int rank) const { return (rank + context_.nranks - 1) % context_.nranks; }

  Layout layout(int) const override { return {case_.count, case_.count, 0, 0}; }
  ExpectedPattern expected(int rank) const override { return {.source_rank = previous(rank)}; }
  void call(const NcclGpu& gpu, const void* send, void* recv) const override {
    const ncclDataType_t type = nccl_datatype_of(case_.dtype);
    FB_NCCL_CHECK(ncclSend(send, case_.count, type, next(gpu.rank), gpu.comm, gpu.stream));
    FB_NCCL_CHECK(ncclRecv(recv, case_.count, type, previous(gpu.rank), gpu.comm, gpu.stream));
  }
};

const Registrar<NcclOpImplementation> registrar{{"sendrecv", {Placement::out_of_place}, make_nccl_case<Sendrecv>}};

}  // namespace
}  // namespace fb
