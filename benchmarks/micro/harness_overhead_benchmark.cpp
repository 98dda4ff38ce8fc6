// The cost fabricbench adds around each timed iteration (target: under 1 us), and the cost of the
// bookkeeping between sizes (statistics, keeping the results files current).

#include "core/harness.hpp"
#include "core/statistics.hpp"
#include "results/results_io.hpp"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <numeric>
#include <unistd.h>
#include <vector>

namespace {

constexpr std::size_t iterations_per_loop = 1000;

// An iteration that does nothing: what remains is the clock read and the store per iteration.
void BM_TimeBackToBack(benchmark::State& state) {
  std::vector<double> seconds(iterations_per_loop);
  int work = 0;
  for (auto _ : state) {
    fb::time_back_to_back(seconds, [&] { benchmark::DoNotOptimize(++work); });
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * iterations_per_loop));
  state.counters["ns_per_timed_iteration"] = benchmark::Counter(
      static_cast<double>(state.iterations() * iterations_per_loop), benchmark::Counter::kIsRate | benchmark::Counter::kInvert,
      benchmark::Counter::kIs1000);
}
BENCHMARK(BM_TimeBackToBack);

void BM_TimeSynchronized(benchmark::State& state) {
  std::vector<double> seconds(iterations_per_loop);
  int work = 0;
  for (auto _ : state) {
    fb::time_synchronized(seconds, [&] { benchmark::DoNotOptimize(work); }, [&] { benchmark::DoNotOptimize(++work); });
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * iterations_per_loop));
  state.counters["ns_per_timed_iteration"] = benchmark::Counter(
      static_cast<double>(state.iterations() * iterations_per_loop), benchmark::Counter::kIsRate | benchmark::Counter::kInvert,
      benchmark::Counter::kIs1000);
}
BENCHMARK(BM_TimeSynchronized);

void BM_SummarizeTimes(benchmark::State& state) {
  std::vector<double> seconds(static_cast<std::size_t>(state.range(0)));
  std::iota(seconds.rbegin(), seconds.rend(), 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(fb::summarize_times(seconds));
}
BENCHMARK(BM_SummarizeTimes)->Arg(20)->Arg(1000)->Arg(100000);

// After every size both results files are rewritten (temp file, fsync, rename): the price of
// losing nothing on a crash, paid between sizes, never inside a timed loop.
void BM_RewriteResultsFiles(benchmark::State& state) {
  const auto dir = std::filesystem::temp_directory_path() / ("fabricbench-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  fb::ResultRow row;
  row.run_id = "bench";
  row.backend = "mpi";
  row.op = "all_reduce";
  row.dtype = "float";
  row.redop = "sum";
  row.timestamp = "2026-11-22T00:00:00Z";
  fb::ResultSet results;
  results.rows.assign(static_cast<std::size_t>(state.range(0)), row);
  for (auto _ : state) {
    fb::write_file_atomically(dir / "r.csv", fb::results_to_csv(results));
    fb::write_file_atomically(dir / "r.json", fb::results_to_json(results));
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_RewriteResultsFiles)->Arg(30)->Arg(300)->Unit(benchmark::kMicrosecond);

}  // namespace
