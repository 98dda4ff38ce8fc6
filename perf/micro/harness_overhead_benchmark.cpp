// The cost fabricbench adds around each timed iteration (target: under 1 us), and the cost of the
// bookkeeping between sizes (statistics, keeping the results files current).

#include "benchmarks/core/harness.hpp"
#include "common/statistics.hpp"
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
  state.counters["ns_per_timed_iteration"] =
      benchmark::Counter(static_cast<double>(state.iterations() * iterations_per_loop),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_TimeBackToBack);

void BM_TimeSynchronized(benchmark::State& state) {
  std::vector<double> seconds(iterations_per_loop);
  int work = 0;
  for (auto _ : state) {
    fb::time_synchronized(
        seconds, [&] { benchmark::DoNotOptimize(work); }, [&] { benchmark::DoNotOptimize(++work); });
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * iterations_per_loop));
  state.counters["ns_per_timed_iteration"] =
      benchmark::Counter(static_cast<double>(state.iterations() * iterations_per_loop),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_TimeSynchronized);

void BM_SummarizeTimes(benchmark::State& state) {
  std::vector<double> seconds(static_cast<std::size_t>(state.range(0)));
  std::iota(seconds.rbegin(), seconds.rend(), 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(fb::summarize_times(seconds));
}
BENCHMARK(BM_SummarizeTimes)->Arg(20)->Arg(1000)->Arg(100000);

fb::ResultRow sample_row() {
  fb::ResultRow row;
  row.run_id = "bench";
  row.backend = "mpi";
  row.op = "all_reduce";
  row.dtype = "float";
  row.redop = "sum";
  row.nranks = 4;
  row.bytes = 1 << 20;
  row.count = 1 << 18;
  row.iterations = 20;
  row.time_min_us = row.time_median_us = row.time_p99_us = row.time_max_us = 123.456;
  row.algbw_gbps = 8.5;
  row.busbw_gbps = 12.75;
  row.timestamp = "2026-11-22T00:00:00Z";
  return row;
}

std::filesystem::path bench_dir() {
  const auto dir = std::filesystem::temp_directory_path() / ("fabricbench-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// Both results files written whole (temp file, fsync, rename): what every other output costs, and
// what keeping the results current would cost per size if the files were not grown by appending.
void BM_RewriteResultsFiles(benchmark::State& state) {
  const auto dir = bench_dir();
  fb::ResultSet results;
  results.rows.assign(static_cast<std::size_t>(state.range(0)), sample_row());
  for (auto _ : state) {
    fb::write_file_atomically(dir / "r.csv", fb::results_to_csv(results));
    fb::write_file_atomically(dir / "r.json", fb::results_to_json(results));
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_RewriteResultsFiles)->Arg(30)->Arg(300)->Arg(10000)->Unit(benchmark::kMicrosecond);

// A whole sweep of N sizes, one row each, as `fabricbench run` keeps it on disk: append, then
// publish both files after every size. Linear in N: the time per size (1 / items_per_second) stays flat as N grows.
void BM_ResultsSweep(benchmark::State& state) {
  const auto dir = bench_dir();
  const auto sizes = static_cast<std::size_t>(state.range(0));
  const fb::ResultRow row = sample_row();
  for (auto _ : state) {
    {
      fb::ResultsWriter writer({dir / "r.csv", dir / "r.json"}, fb::Provenance{});
      for (std::size_t size = 0; size < sizes; ++size) {
        writer.append(row);
        writer.flush();
      }
    }
    state.PauseTiming();
    std::filesystem::remove(dir / "r.csv");
    std::filesystem::remove(dir / "r.json");
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * sizes));
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_ResultsSweep)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
