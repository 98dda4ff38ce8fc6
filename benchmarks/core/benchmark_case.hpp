#pragma once
// The value types a backend receives and returns: one case to measure, and its raw timings.

#include "common/dtype.hpp"
#include "common/op_catalog.hpp"
#include "common/rank_placement.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace fb {

struct BenchmarkCase {
  const OpTraits* op = nullptr;
  DataType dtype = DataType::float32;
  ReduceOp redop = ReduceOp::sum;  // ignored by ops that do not reduce
  int root = 0;                    // ignored by rootless ops
  Placement placement = Placement::out_of_place;
  std::uint64_t bytes = 0;  // nccl-tests size semantics
  std::uint64_t count = 0;  // elements per rank buffer
  int warmup_iterations = 1;
  int iterations = 20;
  // >0: `iterations` is the least; the backend runs as many more as make the timed loop last this
  // long, up to max_iterations, and every rank runs the same number.
  double min_time_s = 0;
  int max_iterations = 0;
  bool check = true;
  int window = 64;              // messages in flight for bw and bibw
  int src_rank = 0;             // point-to-point endpoints; for device copies GPU ordinals or
  int dst_rank = 1;             // host_memory (core/backend.hpp)
  int graph_launches = 0;       // >0: each timed sample is one CUDA graph of `iterations` ops
  double step_deadline_s = 30;  // the watchdog ends the job when one step takes longer
};

struct Measurement {
  // Per iteration, the slowest rank's time in seconds for one timed unit (one collective call, or
  // one one-way message for point-to-point ops). Filled on the reporting rank only.
  std::vector<double> unit_seconds;
  // The slowest rank's mean time per unit, where that is not the mean of `unit_seconds`: for ops
  // whose ranks time their iterations back to back (harness.hpp's time_back_to_back) it is each
  // rank's loop time over its units, the largest over ranks. Empty: the mean of `unit_seconds`.
  std::optional<double> mean_unit_seconds;
  // Elements that failed validation, summed over ranks; known on every rank. Empty: not checked.
  std::optional<std::uint64_t> wrong;
  // Set for one pair of a set measured together (pairwise, concurrent).
  std::optional<RankPair> pair;
  std::optional<int> round;
  std::optional<int> concurrent_flows;
};

}  // namespace fb
