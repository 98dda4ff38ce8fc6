#pragma once
// Point-to-point ops between two NCCL ranks (--src, --dst), or between every pair of a pair
// pattern's round at once, the others idle: an iteration is a sequence of steps, each one NCCL
// group of messages, so a ping-pong stays a ping-pong even when both ranks are GPUs of one
// process (-g 2).

#include "benchmarks/nccl/nccl_op.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace fb {

class NcclPointToPointCase : public NcclOpCase {
 public:
  // `messages` messages of the case's size from `from` to `to`; an acknowledgement is one element,
  // sent so the sender's time includes the receiver's completion.
  struct Transfer {
    int from = 0;
    int to = 1;
    int messages = 1;
    bool acknowledgement = false;
  };
  using Step = std::vector<Transfer>;
  // The steps of one pair's iteration.
  using PairSteps = std::function<std::vector<Step>(RankPair)>;

  // Every pair of the context (or the case's --src/--dst) runs `pair_steps` in the same steps.
  NcclPointToPointCase(const BenchmarkCase& benchmark_case, const NcclOpContext& context, const PairSteps& pair_steps,
                       int units_per_iteration);

  void fill_inputs() override;
  void reset_outputs() override;
  void enqueue_iteration() override;
  std::uint64_t count_wrong(std::size_t gpu_index) override;
  int units_per_iteration() const override { return units_per_iteration_; }

 private:
  struct GpuBuffers {
    DeviceBuffer send;
    DeviceBuffer recv;
    DeviceBuffer acknowledgement_send;
    DeviceBuffer acknowledgement_recv;
  };
  bool takes_part(int rank) const;
  // What rank `rank` must receive: the pattern of the first rank that sends to it (the check
  // compares every transfer to it with its receive buffer); none when it receives nothing.
  std::optional<ExpectedPattern> expected_receive(int rank) const;

  BenchmarkCase case_;
  NcclOpContext context_;
  std::vector<Step> steps_;
  int units_per_iteration_;
  std::vector<GpuBuffers> buffers_;  // by GPU of the context; empty buffers on idle GPUs
};

}  // namespace fb
