#include "benchmarks/mpi/mpi_backend.hpp"

#include "common/errors.hpp"
#include "benchmarks/core/harness.hpp"
#include "common/pair_schedule.hpp"
#include "benchmarks/core/pair_measurements.hpp"
#include "common/statistics.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace fb {

MpiBackend::MpiBackend(int& argc, char**& argv, const LaunchOptions& launch)
    : mpi_(argc, argv), placement_(placement_of(mpi_.process_hosts(), mpi_.rank())) {
  context_.comm = mpi_.comm();
  context_.rank = mpi_.rank();
  context_.nranks = mpi_.size();
  context_.host_pages = launch.host_pages;
  host_pages_ = probe_host_pages(launch.host_pages);

  watchdog_ = std::make_unique<Watchdog>(context_.rank, placement_.rank_hosts,
                                         WatchdogSettings{.interface_name = launch.watchdog_interface},
                                         mpi_.broadcaster(), exit_on_timeout);
  job_control_ = std::make_unique<MpiJobControl>(mpi_, *watchdog_);
}

MpiBackend::~MpiBackend() {
  job_control_.reset();
  watchdog_.reset();
}

std::map<std::string, std::string> MpiBackend::library_versions() const { return mpi_.library_versions(); }

std::vector<Placement> MpiBackend::placements_of(const OpTraits& op) const {
  // A pair pattern runs wherever its point-to-point primitive does.
  const auto& primitive = op.pair_primitive.empty() ? op.name : op.pair_primitive;
  const MpiOpImplementation* implementation = MpiOpRegistry::instance().find(primitive);
  return implementation ? implementation->placements : std::vector<Placement>{};
}

void MpiBackend::require_supported(DataType dtype) const {
  if (dtype == DataType::half || dtype == DataType::bfloat16)
    throw UsageError(fmt::format("data type {} is not supported by the mpi backend (MPI {}.{} has no 16-bit "
                                 "floating-point datatype); use float or double, or the nccl backend",
                                 name_of(dtype), MPI_VERSION, MPI_SUBVERSION));
}

int MpiBackend::iterations_to_min_time(const BenchmarkCase& benchmark_case, std::span<const double> first_seconds) {
  // The median iteration, not the total, sets the pace: one preemption among the first iterations
  // would otherwise cut the count to the minimum. The slowest rank's pace sets the count every rank
  // runs (each must run as many as its partners).
  const double iteration_seconds = mpi_.max_over_ranks(summarize_times(first_seconds).median_s);
  return iterations_to_fill(benchmark_case.min_time_s, iteration_seconds, benchmark_case.iterations,
                            benchmark_case.max_iterations);
}

MpiBackend::LocalRun MpiBackend::run_locally(const BenchmarkCase& benchmark_case, IterationStart start) {
  const MpiOpImplementation* implementation = MpiOpRegistry::instance().find(benchmark_case.op->name);
  if (!implementation) throw std::logic_error("measure() called for an op the plan should have refused");
  const std::unique_ptr<MpiOpCase> op_case = implementation->factory(benchmark_case, context_);
  const auto barrier = [&] { mpi_.barrier(); };
  std::uint32_t iteration = 0;
  CasePhase phase = CasePhase::warmup;
  const auto iterate = [&] {
    watchdog_->step(phase, ++iteration);
    op_case->run_iteration();
  };

  // The times' buffer is sized before the warm-up, not between the barrier and the timed loop:
  // allocating and zeroing it there took one rank tens of microseconds longer than its peer on
  // this VM (fresh pages), and a ping-pong's first timed iteration absorbed the difference: 40 to
  // 78 us in 2,000 round trips of 0.3 us, 7-13% of the mean (#44, docs/performance.md).
  LocalRun local;
  local.unit_seconds.resize(static_cast<std::size_t>(benchmark_case.iterations));
  op_case->fill_inputs();
  for (int i = 0; i < benchmark_case.warmup_iterations; ++i) iterate();
  barrier();

  phase = CasePhase::timed;
  iteration = 0;
  double loop_seconds = 0;  // back to back: the timed loops' own time, from two reads each
  const auto time_iterations = [&](std::span<double> seconds) {
    if (start == IterationStart::together)
      time_synchronized(seconds, barrier, iterate);
    else
      loop_seconds += time_back_to_back(seconds, iterate);
  };
  // -n auto: the least count is timed first and kept, then as many more as fill min_time_s. Its
  // samples are measurements like the rest, so where they already fill it (a 4 MiB bw window
  // lasts tens of milliseconds) auto costs no more than the fixed count.
  time_iterations(local.unit_seconds);
  if (benchmark_case.min_time_s > 0) {
    const std::size_t first = local.unit_seconds.size();
    local.unit_seconds.resize(static_cast<std::size_t>(iterations_to_min_time(benchmark_case, local.unit_seconds)));
    // For the same reason the added iterations start after the resize, together.
    barrier();
    time_iterations(std::span(local.unit_seconds).subspan(first));
  }
  const double units = op_case->units_per_iteration();
  for (double& seconds : local.unit_seconds) seconds /= units;
  if (start == IterationStart::back_to_back)
    local.loop_mean_unit_seconds = loop_seconds / (static_cast<double>(local.unit_seconds.size()) * units);

  if (benchmark_case.check) {
    watchdog_->step(CasePhase::check);
    op_case->fill_inputs();
    barrier();
    iterate();
    local.wrong = op_case->count_wrong();
  }
  watchdog_->step(CasePhase::gather);
  return local;
}

Measurement MpiBackend::measure(const BenchmarkCase& benchmark_case) {
  watchdog_->begin_case(fmt::format("{} {} B {} ({})", benchmark_case.op->name, benchmark_case.bytes,
                                    name_of(benchmark_case.placement), name_of(benchmark_case.dtype)),
                        benchmark_case.step_deadline_s);
  const LocalRun local =
      run_locally(benchmark_case, benchmark_case.op->op_class == OpClass::collective ? IterationStart::together
                                                                                     : IterationStart::back_to_back);

  Measurement measurement = mpi_.slowest_rank_measurement(local.unit_seconds, local.wrong);
  // Ranks that run back to back time shifted intervals of their loops, so the per-iteration
  // maximum above picks, in every iteration, the longer of two intervals that each rank's loop
  // mean already averages; the mean is the slowest rank's loop mean instead (harness.hpp).
  if (local.loop_mean_unit_seconds) measurement.mean_unit_seconds = mpi_.max_over_ranks(*local.loop_mean_unit_seconds);
  watchdog_->end_case();
  return measurement;
}

std::vector<Measurement> MpiBackend::measure_pairs(const BenchmarkCase& benchmark_case,
                                                   std::span<const RankPair> pairs) {
  if (pairs.empty()) throw std::logic_error("measure_pairs() needs at least one pair");
  // A rank in no pair runs the case as an idle rank of the first pair.
  BenchmarkCase own_case = benchmark_case;
  const auto own_pair = std::find_if(pairs.begin(), pairs.end(), [&](const RankPair& pair) {
    return pair.src == context_.rank || pair.dst == context_.rank;
  });
  own_case.src_rank = own_pair != pairs.end() ? own_pair->src : pairs.front().src;
  own_case.dst_rank = own_pair != pairs.end() ? own_pair->dst : pairs.front().dst;

  watchdog_->begin_case(fmt::format("{} {} B, {} pair{} at once", benchmark_case.op->name, benchmark_case.bytes,
                                    pairs.size(), pairs.size() == 1 ? "" : "s"),
                        benchmark_case.step_deadline_s);
  // Pairs left to run their iterations back to back drift apart: a pair that gets ahead finishes
  // first and the others run their last iterations alone, faster than the shared links allow.
  // Starting every iteration together keeps the flows overlapping for the whole measurement.
  const LocalRun local = run_locally(own_case, IterationStart::together);

  const std::uint64_t own_wrong = local.wrong.value_or(0);
  const MpiJob::RankResults all = mpi_.gather_rank_results(local.unit_seconds, std::span(&own_wrong, 1));
  const std::span<const std::uint64_t> wrong = benchmark_case.check ? all.wrong : std::span<const std::uint64_t>();
  std::vector<Measurement> measurements = pair_measurements(pairs, all.unit_seconds, local.unit_seconds.size(), wrong);
  watchdog_->end_case();
  return measurements;
}

namespace {
const Registrar<BackendRegistration> registrar{
    {"mpi", "host buffers over MPI, one process per rank",
     [](int& argc, char**& argv, const LaunchOptions& launch) -> std::unique_ptr<Backend> {
       return std::make_unique<MpiBackend>(argc, argv, launch);
     }}};
}  // namespace

}  // namespace fb
