#pragma once
// What `fabricbench run` will measure: the flags, checked, expanded into cases. Building the plan
// needs only the rank count, so every bad flag is reported before any traffic.

#include "benchmarks/core/backend.hpp"
#include "benchmarks/core/benchmark_case.hpp"
#include "common/pair_schedule.hpp"
#include "common/sizes.hpp"

#include <optional>
#include <string>
#include <vector>

namespace fb {

class Backend;

// The flags of `fabricbench run`, as typed (nccl-tests names and meanings where they exist).
struct RunOptions {
  std::vector<std::string> op_names;
  std::string min_bytes;  // empty: 8 bytes, rounded up to the op's smallest valid size
  std::string max_bytes = "32M";
  std::uint64_t step_factor = 2;
  std::string step_bytes;  // empty: geometric sweep
  int iterations = 20;
  // -n auto: each size runs at least min_time_s, with `iterations` to max_auto_iterations
  // iterations (Google Benchmark's rule). Empty: automatic for point-to-point ops and pair
  // patterns on backends that can (Backend::times_to_min_time), fixed for the rest.
  std::optional<bool> auto_iterations;
  double min_time_s = 0.1;
  int max_auto_iterations = 100000;
  int warmup_iterations = 5;
  int check = 1;
  std::string dtype = "float";
  std::string redop = "sum";
  int root = 0;
  std::string placement = "both";  // both, out-of-place, in-place
  int window = 64;
  int src_rank = 0;
  int dst_rank = 1;
  double timeout_s = 0;                  // per step; 0: derived from the size (see step_deadline_s)
  std::string pair_endpoints = "hosts";  // pair patterns: one rank per host, or every rank
  std::string cut = "halves";            // concurrent: which pairs cross the cut
  std::uint64_t seed = 1;                // concurrent --cut random: the matching drawn
  std::string pairs_file;                // pairwise: measure these host pairs instead of all (--pairs)
  LaunchOptions launch;                  // GPUs per process (-g), CUDA graph replays (-G)
};

// Checks what can be checked without knowing the rank count. Throws UsageError.
void validate_run_options(const RunOptions& options);

struct PlannedOp {
  const OpTraits* op = nullptr;
  std::vector<Placement> placements;
  // One entry per size; each holds a case per placement, in `placements` order.
  std::vector<std::vector<BenchmarkCase>> cases_by_size;
  // Pair patterns: the sets of pairs measured together, in order, for every size. Device copies:
  // one route per round.
  std::vector<PairRound> pair_rounds;
  // Device copies: the routes this machine cannot run (no peer access), reported, not measured.
  std::vector<DeviceRoute> unavailable_routes;
};

// Throws UsageError for anything the backend cannot run on its ranks.
std::vector<PlannedOp> plan_run(const RunOptions& options, const Backend& backend);

}  // namespace fb
