// The run store at fleet scale: `history ingest` of 10,000 results files into a fresh SQLite store
// (read, parse, record; the runs/s counter), and trend queries against those 10,000 runs. Each run
// is a 2-rank all_reduce sweep of 8 B to 1 MiB, both placements (36 rows), plus 4 pairwise rows
// between hosts, as `run` writes them. BM_ReadResultsFiles is the reading and parsing alone.
// BM_HistoryDrift is `history drift` over a fleet store of its own (4 hosts, every ordered pair of
// them and 8 all_reduce sizes per run: 20 rows, 200,000 in all), BM_DriftCatalog its catalog alone.
// Numbers: docs/fleet-health.md (Scale).

#include "history/fleet_drift.hpp"
#include "results/result_loading.hpp"
#include "results/results_io.hpp"
#include "store/run_store.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

namespace {

constexpr int run_count = 10'000;

// One all_reduce row of the run `p` describes, one rank per node: 5 us plus 1 us per 10 kB, its
// bus bandwidth scaled by `level` (10: as measured), so that runs differ as a fleet's do.
fb::ResultRow all_reduce_row(const fb::Provenance& p, std::uint64_t bytes, bool in_place, double level) {
  fb::ResultRow row;
  row.run_id = p.run_id;
  row.backend = "mpi";
  row.op = "all_reduce";
  row.dtype = "float";
  row.redop = "sum";
  row.in_place = in_place;
  row.nranks = p.nranks;
  row.nodes = p.nodes;
  row.ranks_per_node = 1;
  row.bytes = bytes;
  row.count = bytes / 4;
  row.iterations = 20;
  row.time_median_us = row.time_min_us = row.time_p99_us = row.time_max_us = 5 + static_cast<double>(bytes) / 1e4;
  row.algbw_gbps = static_cast<double>(bytes) / row.time_median_us / 1e3;
  row.busbw_gbps = row.algbw_gbps * level / 10;
  row.wrong = 0;
  row.timestamp = p.start_time;
  return row;
}

fb::ResultSet synthetic_run(int index) {
  fb::ResultSet results;
  auto& p = results.provenance;
  p.run_id = fmt::format("run{:05}", index);
  p.start_time = fmt::format("2026-{:02}-{:02}T{:02}:{:02}:00Z", 1 + index / 1000 % 12, 1 + index / 40 % 25,
                             index / 60 % 24, index % 60);
  p.backend = "mpi";
  p.command_line = "fabricbench run all_reduce pairwise";
  p.nranks = 2;
  p.nodes = 2;
  p.ranks_per_node = 1;
  p.rank_hosts = {fmt::format("node{}", index % 16), fmt::format("node{}", (index + 1) % 16)};
  const double level = 10 + (index % 7) * 0.01;
  for (std::uint64_t bytes = 8; bytes <= (1U << 20); bytes *= 2)
    for (const bool in_place : {false, true}) results.rows.push_back(all_reduce_row(p, bytes, in_place, level));
  for (int pair = 0; pair < 4; ++pair) {
    fb::ResultRow row;
    row.run_id = p.run_id;
    row.backend = "mpi";
    row.op = "pairwise";
    row.dtype = "uint8";
    row.redop = "none";
    row.nranks = 2;
    row.src_rank = 0;
    row.dst_rank = 1;
    row.src_host = fmt::format("node{}", pair);
    row.dst_host = fmt::format("node{}", pair + 4);
    row.bytes = 4 << 20;
    row.iterations = 20;
    row.time_median_us = 400;
    row.algbw_gbps = level;
    row.busbw_gbps = level;
    row.timestamp = p.start_time;
    results.rows.push_back(row);
  }
  return results;
}

// 10,000 results files, written once per process.
const std::filesystem::path& results_directory() {
  static const std::filesystem::path dir = [] {
    std::filesystem::path path = std::filesystem::temp_directory_path() / fmt::format("fb-store-scale-{}", ::getpid());
    std::filesystem::create_directories(path);
    for (int i = 0; i < run_count; ++i) {
      const fb::ResultSet run = synthetic_run(i);
      fb::write_file_atomically(path / (run.provenance.run_id + ".json"), fb::results_to_json(run));
    }
    std::atexit([] { std::filesystem::remove_all(results_directory()); });
    return path;
  }();
  return dir;
}

std::filesystem::path store_path() { return results_directory() / "history.sqlite"; }

// Reading and parsing the files alone: the part of the ingest that is the results format's, not the
// store's.
void BM_ReadResultsFiles(benchmark::State& state) {
  const std::filesystem::path& dir = results_directory();
  std::size_t rows = 0;
  for (auto _ : state)
    for (const fb::LoadedResults& set : fb::load_results({dir})) rows += set.results.rows.size();
  state.counters["runs_per_s"] =
      benchmark::Counter(static_cast<double>(run_count) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  benchmark::DoNotOptimize(rows);
}
BENCHMARK(BM_ReadResultsFiles)->Unit(benchmark::kSecond)->Iterations(1)->MeasureProcessCPUTime()->UseRealTime();

void BM_IngestResultsFiles(benchmark::State& state) {
  const std::filesystem::path& dir = results_directory();
  for (auto _ : state) {
    state.PauseTiming();
    std::filesystem::remove(store_path());
    std::filesystem::remove(store_path().string() + "-wal");
    std::filesystem::remove(store_path().string() + "-shm");
    state.ResumeTiming();
    // As `history ingest` does: the files parsed on every core while the runs before them are recorded.
    fb::store::RunStore store(store_path().string());
    store.record_all([&](const fb::store::RunStore::Recorder& record) {
      fb::for_each_result_set({dir}, [&](fb::LoadedResults&& set) { record(set.results, set.source.string()); });
    });
  }
  state.counters["runs_per_s"] =
      benchmark::Counter(static_cast<double>(run_count) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_IngestResultsFiles)->Unit(benchmark::kSecond)->Iterations(1)->MeasureProcessCPUTime()->UseRealTime();

// The store's part alone: the 10,000 runs parsed once, recorded into a fresh store in one
// transaction (as `history ingest` does) and, for comparison, one transaction per run (as `run
// --store` records).
void BM_RecordParsedRuns(benchmark::State& state) {
  const bool one_transaction = state.range(0) == 1;
  const std::vector<fb::LoadedResults> sets = fb::load_results({results_directory()});
  const std::filesystem::path path = results_directory() / "record-only.sqlite";
  for (auto _ : state) {
    state.PauseTiming();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
    state.ResumeTiming();
    fb::store::RunStore store(path.string());
    if (one_transaction) {
      store.record_all([&](const fb::store::RunStore::Recorder& record) {
        for (const fb::LoadedResults& set : sets) record(set.results, set.source.string());
      });
    } else {
      for (const fb::LoadedResults& set : sets) store.record(set.results, set.source.string());
    }
  }
  state.counters["runs_per_s"] =
      benchmark::Counter(static_cast<double>(run_count) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RecordParsedRuns)->Arg(0)->Arg(1)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

void BM_TrendQuery(benchmark::State& state, fb::store::SeriesQuery query) {
  fb::store::RunStore store(store_path().string());
  if (store.runs().size() != run_count) {
    state.SkipWithError("the ingest benchmark did not leave 10,000 runs");
    return;
  }
  std::size_t points = 0;
  for (auto _ : state) points = store.trend(query).points.size();
  state.counters["points"] = static_cast<double>(points);
}
BENCHMARK_CAPTURE(BM_TrendQuery, all_reduce_1M, fb::store::SeriesQuery{.op = "all_reduce", .bytes = 1 << 20})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_TrendQuery, all_reduce_defaults, fb::store::SeriesQuery{.op = "all_reduce"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_TrendQuery, host, fb::store::SeriesQuery{.host = "node2"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_TrendQuery, pair, fb::store::SeriesQuery{.host = "node1", .peer = "node5"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// One run of a 4-host fleet: every ordered pair of the hosts (12 pairwise rows) and an all_reduce
// sweep of 8 sizes across them.
fb::ResultSet fleet_run(int index) {
  fb::ResultSet results;
  auto& p = results.provenance;
  p.run_id = fmt::format("fleet{:05}", index);
  p.start_time = fmt::format("2026-{:02}-{:02}T{:02}:{:02}:{:02}Z", 1 + index / 1000 % 12, 1 + index / 40 % 25,
                             index / 60 % 24, index % 60, index / 1440 % 60);
  p.backend = "mpi";
  p.command_line = "fabricbench run all_reduce pairwise";
  p.nranks = 4;
  p.nodes = 4;
  p.ranks_per_node = 1;
  p.rank_hosts = {"node0", "node1", "node2", "node3"};
  const double level = 10 + (index % 7) * 0.01;
  for (std::uint64_t bytes = 1 << 13; bytes <= (1U << 20); bytes *= 2)
    results.rows.push_back(all_reduce_row(p, bytes, false, level));
  for (int src = 0; src < 4; ++src)
    for (int dst = 0; dst < 4; ++dst) {
      if (src == dst) continue;
      fb::ResultRow row;
      row.run_id = p.run_id;
      row.backend = "mpi";
      row.op = "pairwise";
      row.nranks = 4;
      row.src_rank = src;
      row.dst_rank = dst;
      row.src_host = fmt::format("node{}", src);
      row.dst_host = fmt::format("node{}", dst);
      row.bytes = 4 << 20;
      row.iterations = 20;
      row.time_median_us = 400;
      row.algbw_gbps = level + src * 0.1 + dst * 0.01;
      row.busbw_gbps = row.algbw_gbps;
      row.timestamp = p.start_time;
      results.rows.push_back(row);
    }
  return results;
}

// The fleet store, recorded once per process in one transaction.
std::string fleet_store_path() {
  static const std::string path = [] {
    const std::filesystem::path file = results_directory() / "fleet.sqlite";
    fb::store::RunStore store(file.string());
    store.record_all([](const fb::store::RunStore::Recorder& record) {
      for (int i = 0; i < run_count; ++i) record(fleet_run(i), "fleet");
    });
    return file.string();
  }();
  return path;
}

void BM_DriftCatalog(benchmark::State& state) {
  fb::store::RunStore store(fleet_store_path());
  std::size_t series = 0;
  for (auto _ : state) {
    const fb::store::SeriesCatalog catalog = store.catalog();
    series = catalog.hosts.size() + catalog.pairs.size() + catalog.collectives.size() + catalog.within_hosts.size();
  }
  state.counters["series"] = static_cast<double>(series);
}
BENCHMARK(BM_DriftCatalog)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

// As `history drift` does: the catalog, every series' trend and its judgement.
void BM_HistoryDrift(benchmark::State& state) {
  fb::store::RunStore store(fleet_store_path());
  std::size_t points = 0;
  for (auto _ : state) {
    const fb::history::FleetDrift fleet = fb::history::judge_store(store, {});
    points = 0;
    for (const auto* group : {&fleet.hosts, &fleet.pairs, &fleet.collectives})
      for (const fb::history::JudgedSeries& s : *group) points += s.trend.points.size();
  }
  state.counters["points"] = static_cast<double>(points);
}
BENCHMARK(BM_HistoryDrift)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

// `history --host` and `--pair` on the fleet store: 60,000 and 20,000 pair rows of 10,000 runs.
void BM_FleetTrend(benchmark::State& state, fb::store::SeriesQuery query) {
  fb::store::RunStore store(fleet_store_path());
  std::size_t points = 0;
  for (auto _ : state) points = store.trend(query).points.size();
  state.counters["points"] = static_cast<double>(points);
}
BENCHMARK_CAPTURE(BM_FleetTrend, host, fb::store::SeriesQuery{.host = "node2"})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_FleetTrend, pair, fb::store::SeriesQuery{.host = "node1", .peer = "node3"})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
