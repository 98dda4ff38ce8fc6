// Loads results JSON files of 10^4, 10^5 and 10^6 rows, as fabricbench writes them (a pairwise
// sweep of many hosts, one row per ordered pair), from disk with read_results_json, and reports
// the rows per second and the peak heap over the file size. Linear means both stay flat as the rows
// grow; the issue that asked for it measured 2.3/5.4/14.9 s for 50k/100k/200k rows and no load of
// 10^6 within 180 s. CPU time per row is the number to compare: the machine is shared.
//
// The file is written once per size before timing (results_to_json), into the system's temporary
// directory, and removed after.

#include "perf/support/heap_counter.hpp"
#include "results/results_io.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace {

// One pairwise bandwidth row per ordered pair of 1,024 hosts, until `rows` rows.
fb::ResultSet pairwise_results(std::size_t rows) {
  fb::ResultSet results;
  results.provenance.run_id = "results-load-benchmark";
  results.provenance.backend = "mpi";
  results.rows.reserve(rows);
  const std::size_t hosts = 1024;
  for (std::size_t i = 0; i < rows; ++i) {
    const std::size_t src = i / (hosts - 1) % hosts;
    std::size_t dst = i % (hosts - 1);
    dst += dst >= src ? 1 : 0;
    fb::ResultRow row;
    row.run_id = results.provenance.run_id;
    row.backend = "mpi";
    row.op = "bw";
    row.dtype = "int8";
    row.redop = "none";
    row.nranks = static_cast<int>(hosts);
    row.nodes = static_cast<int>(hosts);
    row.ranks_per_node = 1;
    row.src_rank = static_cast<int>(src);
    row.dst_rank = static_cast<int>(dst);
    row.src_host = fmt::format("node{:04}", src);
    row.dst_host = fmt::format("node{:04}", dst);
    row.round = static_cast<int>(i / (hosts / 2));
    row.concurrent_flows = static_cast<int>(hosts / 2);
    row.bytes = 64u << 20;
    row.count = row.bytes;
    row.iterations = 20;
    const double time_us = 2800 + static_cast<double>(i % 97);
    row.time_min_us = time_us * 0.98;
    row.time_median_us = time_us;
    row.time_mean_us = time_us * 1.01;
    row.time_p99_us = time_us * 1.05;
    row.time_max_us = time_us * 1.08;
    row.time_cv = 0.012;
    row.algbw_gbps = static_cast<double>(row.bytes) / (time_us * 1e3);
    row.busbw_gbps = row.algbw_gbps;
    row.wrong = 0;
    row.timestamp = "2026-11-26T22:00:00Z";
    results.rows.push_back(std::move(row));
  }
  return results;
}

void BM_LoadResultsJson(benchmark::State& state) {
  const auto rows = static_cast<std::size_t>(state.range(0));
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / fmt::format("fabricbench-results-load-{}.json", rows);
  std::uintmax_t file_bytes = 0;
  {
    std::string json = fb::results_to_json(pairwise_results(rows));
    if (state.range(1) == 1) json = nlohmann::ordered_json::parse(json).dump();
    std::ofstream(file, std::ios::binary) << json;
    file_bytes = json.size();
  }
  std::size_t loaded_rows = 0;
  const std::size_t before = fb::perf::reset_heap_peak();
  for (auto _ : state) {
    const fb::ResultSet results = fb::read_results_json(file);
    loaded_rows = results.rows.size();
    benchmark::DoNotOptimize(loaded_rows);
  }
  const std::size_t peak = fb::perf::heap_peak_bytes() - before;
  std::filesystem::remove(file);
  if (loaded_rows != rows) state.SkipWithError("the file did not load whole");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(file_bytes));
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["file_MB"] = static_cast<double>(file_bytes) / 1e6;
  state.counters["rows_per_s"] = benchmark::Counter(static_cast<double>(rows) * static_cast<double>(state.iterations()),
                                                    benchmark::Counter::kIsRate);
  state.counters["peak_heap_over_file"] = static_cast<double>(peak) / static_cast<double>(file_bytes);
}

// 2^17 + 1 rows: were the rows' vector grown by doubling, it would just have doubled, holding its
// old 2^17 rows and room for 2^18 at once. The second argument 1 writes the file without
// indentation (about 830 bytes a row against 1,050): more rows per byte of file.
BENCHMARK(BM_LoadResultsJson)
    ->Args({10'000, 0})
    ->Args({100'000, 0})
    ->Args({(1 << 17) + 1, 0})
    ->Args({(1 << 17) + 1, 1})
    ->Args({1'000'000, 0})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
