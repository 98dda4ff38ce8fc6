#include "benchmarks/core/run_plan.hpp"

#include "benchmarks/core/backend.hpp"
#include "benchmarks/core/memory_budget.hpp"
#include "common/errors.hpp"
#include "common/text_file.hpp"
#include "benchmarks/core/watchdog.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <fmt/format.h>

namespace fb {
namespace {

constexpr std::uint64_t default_min_bytes = 8;

// `unit_bytes` is the op's size granularity; an unset -b starts the sweep at the first multiple
// of it from 8 bytes, so the defaults work for every op and rank count.
SweepSpec sweep_of(const RunOptions& options, std::uint64_t unit_bytes = 1) {
  SweepSpec sweep;
  sweep.min_bytes = options.min_bytes.empty() ? (default_min_bytes + unit_bytes - 1) / unit_bytes * unit_bytes
                                              : parse_size_bytes(options.min_bytes);
  sweep.min_given = !options.min_bytes.empty();
  sweep.max_bytes = parse_size_bytes(options.max_bytes);
  sweep.step_factor = options.step_factor;
  if (!options.step_bytes.empty()) sweep.step_bytes = parse_size_bytes(options.step_bytes);
  return sweep;
}

std::vector<Placement> requested_placements(const std::string& text) {
  if (text == "both") return {Placement::out_of_place, Placement::in_place};
  if (text == "out-of-place" || text == "out") return {Placement::out_of_place};
  if (text == "in-place" || text == "in") return {Placement::in_place};
  throw UsageError(fmt::format("--placement '{}' is not one of both, out-of-place, in-place", text));
}

}  // namespace

void validate_run_options(const RunOptions& options) {
  if (options.op_names.empty()) throw UsageError("no op given (for example: fabricbench run all_reduce)");
  for (const auto& name : options.op_names) op_by_name(name);
  validate_sweep(sweep_of(options));
  if (options.iterations < 1) throw UsageError(fmt::format("-n {} must be at least 1", options.iterations));
  if (!(options.min_time_s > 0) || !std::isfinite(options.min_time_s))
    throw UsageError(fmt::format("--min-time {} must be a finite number of seconds above 0", options.min_time_s));
  // A count given with -n turns auto off: the bound on automatic counts does not apply to it.
  if (options.auto_iterations != false && options.max_auto_iterations < options.iterations)
    throw UsageError(fmt::format("--max-iters {} must be at least the {} iterations -n auto starts from",
                                 options.max_auto_iterations, options.iterations));
  if (options.warmup_iterations < 0)
    throw UsageError(fmt::format("-w {} must not be negative", options.warmup_iterations));
  if (options.check != 0 && options.check != 1) throw UsageError(fmt::format("-c {} must be 0 or 1", options.check));
  if (options.window < 1) throw UsageError(fmt::format("--window {} must be at least 1", options.window));
  // A NaN deadline never passes and an infinite one never ends a hung job.
  if (!std::isfinite(options.timeout_s))
    throw UsageError(fmt::format("-T {} must be a finite number of seconds", options.timeout_s));
  if (options.timeout_s < 0) throw UsageError(fmt::format("--timeout {} must not be negative", options.timeout_s));
  if (options.root < 0) throw UsageError(fmt::format("-r {} must not be negative", options.root));
  if (options.src_rank < 0 || options.dst_rank < 0 || options.src_rank == options.dst_rank)
    throw UsageError(
        fmt::format("--src {} and --dst {} must be two different ranks", options.src_rank, options.dst_rank));
  parse_data_type(options.dtype);
  parse_reduce_op(options.redop);
  requested_placements(options.placement);
  parse_pair_endpoints(options.pair_endpoints);
  parse_cut(options.cut);
  validate_interface_spec(options.launch.watchdog_interface);
  if (!options.pairs_file.empty() && options.pair_endpoints != "hosts")
    throw UsageError("--pairs names hosts: it takes --pair-endpoints hosts");
}

namespace {

// The rounds of a pair pattern: the pairs file's (`--pairs`), or the op's own schedule.
std::vector<PairRound> pair_rounds_of(const RunOptions& options, const OpTraits& op, const Backend& backend,
                                      std::span<const int> endpoint_ranks) {
  if (options.pairs_file.empty())
    return op.pair_schedule == PairSchedule::cut_alone_then_together
               ? concurrent_rounds(endpoint_ranks, parse_cut(options.cut), options.seed)
               : pairwise_rounds(endpoint_ranks);
  if (op.pair_schedule == PairSchedule::cut_alone_then_together)
    throw UsageError(fmt::format("--pairs chooses the pairs of pairwise; {} measures its own cut", op.name));
  const std::vector<HostPairRound> rounds =
      parse_host_pair_rounds(options.pairs_file, read_text_file(options.pairs_file));
  return host_pair_rounds(backend.placement(), rounds);
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): checks each op against the run as it plans it (ranks, root, endpoints, device routes, placements, element counts), so each refusal names the op and the flag
std::vector<PlannedOp> plan_run(const RunOptions& options, const Backend& backend) {
  validate_run_options(options);
  const int nranks = backend.placement().nranks;
  const DataType dtype = parse_data_type(options.dtype);
  const ReduceOp redop = parse_reduce_op(options.redop);
  const std::size_t element_bytes = size_in_bytes(dtype);
  backend.require_supported(dtype);

  std::vector<PlannedOp> plan;
  for (const auto& name : options.op_names) {
    PlannedOp planned;
    planned.op = &op_by_name(name);
    const OpTraits& op = *planned.op;
    if (nranks < op.min_ranks)
      throw UsageError(fmt::format("{} needs at least {} ranks, this run has {} (start it with mpirun -np {})", op.name,
                                   op.min_ranks, nranks, op.min_ranks));
    if (op.takes_root && options.root >= nranks)
      throw UsageError(fmt::format("-r {} is not a rank of this {}-rank run", options.root, nranks));
    if (op.op_class == OpClass::point_to_point && std::max(options.src_rank, options.dst_rank) >= nranks)
      throw UsageError(fmt::format("--src {} / --dst {} are not both ranks of this {}-rank run", options.src_rank,
                                   options.dst_rank, nranks));
    if (op.op_class == OpClass::pair_pattern) {
      const PairEndpoints endpoints = parse_pair_endpoints(options.pair_endpoints);
      const std::vector<int> endpoint_ranks = pair_endpoint_ranks(backend.placement(), endpoints);
      if (endpoint_ranks.size() < 2)
        throw UsageError(fmt::format("{} needs at least 2 {}, this run has {}{}", op.name, options.pair_endpoints,
                                     endpoint_ranks.size(),
                                     endpoints == PairEndpoints::hosts ? " (--pair-endpoints ranks pairs the ranks "
                                                                         "of one host)"
                                                                       : ""));
      planned.pair_rounds = pair_rounds_of(options, op, backend, endpoint_ranks);
    }

    if (op.op_class == OpClass::device_copy) {
      for (DeviceRoute& route : backend.device_routes(op)) {
        if (!route.unavailable_reason.empty())
          planned.unavailable_routes.push_back(std::move(route));
        else
          planned.pair_rounds.push_back({{route.endpoints}, static_cast<int>(planned.pair_rounds.size()) + 1});
      }
      if (planned.pair_rounds.empty() && planned.unavailable_routes.empty())
        throw UsageError(fmt::format("{} has no route on this machine (the {} backend sees too few GPUs for it)",
                                     op.name, backend.name()));
    }

    // "both" means every placement the backend has for the op; naming one it lacks is an error.
    const std::vector<Placement> available = backend.placements_of(op);
    if (available.empty()) throw UsageError(fmt::format("the {} backend has no op {}", backend.name(), op.name));
    const std::vector<Placement> requested = requested_placements(options.placement);
    for (Placement placement : requested) {
      if (std::find(available.begin(), available.end(), placement) != available.end())
        planned.placements.push_back(placement);
      else if (requested.size() == 1)
        throw UsageError(
            fmt::format("{} has no {} form in the {} backend", op.name, name_of(placement), backend.name()));
    }

    const std::uint64_t unit_bytes = size_unit_bytes(op, element_bytes, nranks);
    const std::string unit_description =
        op.size_is_whole_buffer
            ? fmt::format("{} x {} ranks, since {} sizes are the whole buffer", options.dtype, nranks, op.name)
            : options.dtype;
    const SweepSpec sweep = sweep_of(options, unit_bytes);
    require_memory_for_sizes(sweep, planned.placements.size(), available_memory());
    for (std::uint64_t bytes : expand_sweep(sweep, unit_bytes, unit_description)) {
      const std::uint64_t count = count_per_rank(op, bytes, element_bytes, nranks);
      // MPI counts are int; nccl-tests' sizes beyond that need a larger type, not a silent wrap.
      if (count > static_cast<std::uint64_t>(INT_MAX))
        throw UsageError(fmt::format("size {} needs {} elements per rank, more than the {} a single call can count; "
                                     "lower -e or use a larger -d type",
                                     bytes, count, INT_MAX));
      std::vector<BenchmarkCase> cases;
      // Point-to-point times are short and noisy at small sizes: a fixed count of them is either
      // too few there or too many at 1 GiB, so they get as many as fill --min-time.
      const bool automatic = options.auto_iterations.value_or(
          (op.op_class == OpClass::point_to_point || op.op_class == OpClass::pair_pattern) &&
          backend.times_to_min_time());
      if (automatic && !backend.times_to_min_time())
        throw UsageError(fmt::format("-n auto is not available on the {} backend; give -n a count", backend.name()));
      for (Placement placement : planned.placements) {
        BenchmarkCase benchmark_case;
        benchmark_case.op = &op;
        benchmark_case.dtype = dtype;
        benchmark_case.redop = redop;
        benchmark_case.root = options.root;
        benchmark_case.placement = placement;
        benchmark_case.bytes = bytes;
        benchmark_case.count = count;
        benchmark_case.warmup_iterations = options.warmup_iterations;
        benchmark_case.iterations = options.iterations;
        if (automatic) {
          benchmark_case.min_time_s = options.min_time_s;
          benchmark_case.max_iterations = options.max_auto_iterations;
        }
        benchmark_case.check = options.check == 1;
        benchmark_case.window = options.window;
        benchmark_case.src_rank = options.src_rank;
        benchmark_case.dst_rank = options.dst_rank;
        benchmark_case.graph_launches = options.launch.graph_launches;
        // A step of bw and bibw (and of the pair patterns built on them) is a whole window of messages.
        const std::uint64_t step_bytes = op.op_class == OpClass::point_to_point || op.op_class == OpClass::pair_pattern
                                             ? bytes * static_cast<std::uint64_t>(options.window)
                                             : bytes;
        // With CUDA graphs a step is one replay of all the iterations.
        const std::uint64_t ops_per_step =
            options.launch.graph_launches > 0 ? static_cast<std::uint64_t>(options.iterations) : 1;
        benchmark_case.step_deadline_s =
            step_deadline_s({.fixed_timeout_s = options.timeout_s}, step_bytes) * static_cast<double>(ops_per_step);
        cases.push_back(benchmark_case);
      }
      planned.cases_by_size.push_back(std::move(cases));
    }
    plan.push_back(std::move(planned));
  }
  return plan;
}

}  // namespace fb
