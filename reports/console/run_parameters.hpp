#pragma once
// The parameter lines above a run's tables, in nccl-tests' words ("# nThread 1 nGpus 1 minBytes 8
// maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"),
// so a log says which flags produced it. The values are those in effect for each op, as planned,
// not as typed: an unset -b is each op's own smallest size.

#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace fb {

// -n auto: each size runs at least `min_time_s` of timed iterations, from the planned count up to
// `max_iterations`.
struct AutoIterations {
  double min_time_s = 0;
  int max_iterations = 0;
};

// What one op of a run was planned with.
struct OpParameters {
  std::string op;
  int nranks = 0;
  std::uint64_t min_bytes = 0;  // the sweep's first and last size
  std::uint64_t max_bytes = 0;
  std::uint64_t step_factor = 2;            // geometric sweep (-f)
  std::optional<std::uint64_t> step_bytes;  // linear sweep (-i) instead
  int warmup_iterations = 0;
  int iterations = 0;                       // fixed count; with `automatic` the least
  std::optional<AutoIterations> automatic;  // -n auto
  bool check = true;
  int graph_launches = 0;
  std::string dtype;
  std::optional<std::string> redop;  // ops that reduce
  std::optional<int> root;           // rooted ops
  std::vector<std::string> placements;
  std::optional<int> src_rank;  // point-to-point ops
  std::optional<int> dst_rank;
  std::optional<int> window;  // ops that keep a window of messages in flight (bw, bibw)
};

// "20", or "auto(0.1s,20..100000)" under -n auto: one token, so a script can split the line.
std::string describe_iterations(const OpParameters& parameters);

// Two '#' lines: nccl-tests' parameter line (nRanks, minBytes, maxBytes, step, warmup iters, iters,
// validation, graph), then the ops with what else decides their numbers (datatype, redop, root,
// placement, point-to-point endpoints and window). A value the ops do not share is given per op,
// "8(all_reduce) 32(all_gather)"; a flag no op takes is left out.
void print_run_parameters(std::ostream& out, std::span<const OpParameters> ops);

}  // namespace fb
