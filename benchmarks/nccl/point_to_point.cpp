#include "benchmarks/nccl/point_to_point.hpp"

#include "benchmarks/cuda/device_pattern.hpp"
#include "benchmarks/nccl/nccl_check.hpp"

#include <algorithm>

namespace fb {

NcclPointToPointCase::NcclPointToPointCase(const BenchmarkCase& benchmark_case, const NcclOpContext& context,
                                           const PairSteps& pair_steps, int units_per_iteration)
    : case_(benchmark_case), context_(context), units_per_iteration_(units_per_iteration) {
  const std::vector<RankPair> pairs = context.pairs.empty()
                                          ? std::vector<RankPair>{{benchmark_case.src_rank, benchmark_case.dst_rank}}
                                          : std::vector<RankPair>(context.pairs.begin(), context.pairs.end());
  for (const RankPair& pair : pairs) {
    const std::vector<Step> steps = pair_steps(pair);
    steps_.resize(std::max(steps_.size(), steps.size()));
    for (std::size_t s = 0; s < steps.size(); ++s) steps_[s].insert(steps_[s].end(), steps[s].begin(), steps[s].end());
  }
  const std::size_t bytes = case_.count * size_in_bytes(case_.dtype);
  for (const NcclGpu& gpu : context_.gpus) {
    GpuBuffers buffers;
    if (takes_part(gpu.rank)) {
      buffers.send = DeviceBuffer(gpu.device, bytes);
      buffers.recv = DeviceBuffer(gpu.device, bytes);
      buffers.acknowledgement_send = DeviceBuffer(gpu.device, 1);
      buffers.acknowledgement_recv = DeviceBuffer(gpu.device, 1);
    }
    buffers_.push_back(std::move(buffers));
  }
}

bool NcclPointToPointCase::takes_part(int rank) const {
  for (const Step& step : steps_)
    for (const Transfer& transfer : step)
      if (transfer.from == rank || transfer.to == rank) return true;
  return false;
}

void NcclPointToPointCase::fill_inputs() {
  for (std::size_t g = 0; g < context_.gpus.size(); ++g) {
    const NcclGpu& gpu = context_.gpus[g];
    if (!takes_part(gpu.rank)) continue;
    const ScopedDevice on(gpu.device);
    fill_pattern_on_device(buffers_[g].send.data(), case_.dtype, case_.count, gpu.rank, 0, ReduceOp::sum, gpu.stream);
  }
}

std::optional<ExpectedPattern> NcclPointToPointCase::expected_receive(int rank) const {
  for (const Step& step : steps_)
    for (const Transfer& transfer : step)
      if (!transfer.acknowledgement && transfer.to == rank)
        return ExpectedPattern{.nranks = context_.nranks, .source_rank = transfer.from};
  return std::nullopt;
}

void NcclPointToPointCase::reset_outputs() {
  for (std::size_t g = 0; g < context_.gpus.size(); ++g) {
    const NcclGpu& gpu = context_.gpus[g];
    const std::optional<ExpectedPattern> expected = expected_receive(gpu.rank);
    if (!expected) continue;
    const ScopedDevice on(gpu.device);
    reset_output_on_device(buffers_[g].recv.data(), case_.dtype, case_.count, *expected, gpu.stream);
  }
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one NCCL group per step with each GPU's send and receive by its role; the group must stay in one function
void NcclPointToPointCase::enqueue_iteration() {
  const ncclDataType_t type = nccl_datatype_of(case_.dtype);
  for (const Step& step : steps_) {
    FB_NCCL_CHECK(ncclGroupStart());
    for (std::size_t g = 0; g < context_.gpus.size(); ++g) {
      const NcclGpu& gpu = context_.gpus[g];
      GpuBuffers& buffers = buffers_[g];
      for (const Transfer& transfer : step) {
        const std::size_t count = transfer.acknowledgement ? 1 : case_.count;
        const ncclDataType_t message_type = transfer.acknowledgement ? ncclUint8 : type;
        void* send = transfer.acknowledgement ? buffers.acknowledgement_send.data() : buffers.send.data();
        void* recv = transfer.acknowledgement ? buffers.acknowledgement_recv.data() : buffers.recv.data();
        for (int m = 0; m < transfer.messages; ++m) {
          if (gpu.rank == transfer.from)
            FB_NCCL_CHECK(ncclSend(send, count, message_type, transfer.to, gpu.comm, gpu.stream));
          if (gpu.rank == transfer.to)
            FB_NCCL_CHECK(ncclRecv(recv, count, message_type, transfer.from, gpu.comm, gpu.stream));
        }
      }
    }
    FB_NCCL_CHECK(ncclGroupEnd());
  }
}

std::uint64_t NcclPointToPointCase::count_wrong(std::size_t gpu_index) {
  const NcclGpu& gpu = context_.gpus[gpu_index];
  std::uint64_t wrong = 0;
  for (const Step& step : steps_) {
    for (const Transfer& transfer : step) {
      if (transfer.acknowledgement || transfer.to != gpu.rank) continue;
      const ScopedDevice on(gpu.device);
      ExpectedPattern expected;
      expected.nranks = context_.nranks;
      expected.source_rank = transfer.from;
      wrong += count_wrong_on_device(buffers_[gpu_index].recv.data(), case_.dtype, case_.count, expected, gpu.stream);
    }
  }
  return wrong;
}

}  // namespace fb
