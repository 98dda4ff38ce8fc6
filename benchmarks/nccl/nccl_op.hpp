#pragma once
// How the NCCL backend runs one op. Each op lives in its own file under nccl/ops/ and registers an
// NcclOpImplementation; the backend finds it by the op's catalog name.

#include "benchmarks/core/benchmark_case.hpp"
#include "benchmarks/core/pattern.hpp"
#include "benchmarks/cuda/device_memory.hpp"
#include "common/registry.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fb {

// One GPU this process drives: its NCCL rank, communicator and stream.
struct NcclGpu {
  int device = 0;
  int rank = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
};

struct NcclOpContext {
  std::span<const NcclGpu> gpus;
  int nranks = 1;
  // Point-to-point ops: the pairs measured at the same time (pair patterns); empty: the case's
  // --src and --dst.
  std::span<const RankPair> pairs;
};

// One prepared case: device buffers allocated for a size, type and placement on every GPU of the
// process.
class NcclOpCase {
 public:
  virtual ~NcclOpCase() = default;
  // Enqueues the validation pattern into the inputs (in-place ops overwrite them while timing).
  virtual void fill_inputs() = 0;
  // Enqueues into every output element a value it can never correctly hold (reset_value_at), so
  // that the checked iteration must write every element: without it an out-of-place op that
  // writes nothing passes on the data the last timed iteration left. Called before fill_inputs,
  // which then writes the inputs of an in-place op over the part of the buffer they share.
  virtual void reset_outputs() = 0;
  // Enqueues one iteration on every GPU of the process.
  virtual void enqueue_iteration() = 0;
  // Elements of the output of GPU `gpu_index` (of the context) that differ from the expected
  // values after one iteration that started from fill_inputs(); waits for its stream.
  virtual std::uint64_t count_wrong(std::size_t gpu_index) = 0;
  // Timed units (one-way messages for point-to-point ops) in one iteration.
  virtual int units_per_iteration() const { return 1; }
};

using NcclOpFactory = std::function<std::unique_ptr<NcclOpCase>(const BenchmarkCase&, const NcclOpContext&)>;

struct NcclOpImplementation {
  static constexpr std::string_view registry_kind = "NCCL op";
  std::string_view name;  // the op's catalog name
  std::vector<Placement> placements;
  NcclOpFactory factory;
  // Empty when the op runs with the NCCL this process loaded, else why not (an op that needs a
  // newer library than the one found at run time); unset: always available.
  std::function<std::string()> unavailable_because = {};
};

// Each file under nccl/ops/ registers its op with a Registrar<NcclOpImplementation>.
using NcclOpRegistry = Registry<NcclOpImplementation>;

ncclDataType_t nccl_datatype_of(DataType type);
ncclRedOp_t nccl_redop_of(ReduceOp op);

// Collectives over send and receive buffers (one shared buffer in place). An op says where its
// data sits and what it must produce; the base owns the buffers, the pattern and the check.
class NcclCollectiveCase : public NcclOpCase {
 public:
  // Element counts and, in place, the offsets of the send and receive data in the one buffer.
  struct Layout {
    std::uint64_t send_count = 0;
    std::uint64_t recv_count = 0;
    std::uint64_t in_place_send_offset = 0;
    std::uint64_t in_place_recv_offset = 0;
  };

  void fill_inputs() override;
  void reset_outputs() override;
  void enqueue_iteration() override;
  std::uint64_t count_wrong(std::size_t gpu_index) override;

 protected:
  NcclCollectiveCase(const BenchmarkCase& benchmark_case, const NcclOpContext& context);
  // Allocates the buffers; called by the op's constructor once its layout is known.
  void allocate();

  virtual Layout layout(int rank) const = 0;
  // Pattern index of the first element of the rank's send data.
  virtual std::uint64_t input_first_index(int /*rank*/) const { return 0; }
  virtual ExpectedPattern expected(int rank) const = 0;
  virtual void call(const NcclGpu& gpu, const void* send, void* recv) const = 0;

  // Ops that do not reduce still need a pattern; the sum pattern's small integers serve.
  ReduceOp pattern_redop() const { return case_.op->takes_redop ? case_.redop : ReduceOp::sum; }

  BenchmarkCase case_;
  NcclOpContext context_;

 private:
  struct GpuBuffers {
    DeviceBuffer send;  // unused in place
    DeviceBuffer recv;
    void* send_data = nullptr;
    void* recv_data = nullptr;
  };
  // What the output of NCCL rank `rank` must hold, with the case's ranks and reduction.
  ExpectedPattern expected_output(int rank) const;

  std::vector<GpuBuffers> buffers_;
};

// The factory an op registers: Op constructed from the case and the context.
template <class Op>
std::unique_ptr<NcclOpCase> make_nccl_case(const BenchmarkCase& benchmark_case, const NcclOpContext& context) {
  return std::make_unique<Op>(benchmark_case, context);
}

}  // namespace fb
