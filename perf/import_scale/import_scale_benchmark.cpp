// Imports generated nccl-tests and OSU logs of 1, 10 and 100 MB, and Google Benchmark and
// nccl-tests JSON files of 10^5, 3x10^5 and 10^6 entries, in memory (import_log_text: the parse
// alone, no file I/O) and reports the time per input byte and the peak heap the import held, over
// the input size. Linear means both ratios stay flat as the input grows.
//
// The heap is counted exactly (perf/support/heap_counter.hpp).

#include "importers/importer_registry.hpp"
#include "perf/support/heap_counter.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

namespace {

constexpr std::size_t megabyte = 1'000'000;

// An nccl-tests all_reduce log of 16 ranks on 2 nodes with as many sizes as fit `bytes`.
std::string nccl_tests_log(std::size_t bytes) {
  std::string log = "# nccl-tests version 2.13.9 nccl-headers=21903 nccl-library=21903\n"
                    "# Collective test starting: all_reduce_perf\n"
                    "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 8(bytes) warmup iters: 5 iters: 20 "
                    "agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n";
  for (int rank = 0; rank < 16; ++rank)
    log +=
        fmt::format("#  Rank {:2} Group  0 Pid {:6} on node{:02} device {:2} [0000:{:02x}:00] NVIDIA H100 80GB HBM3\n",
                    rank, 4000 + rank, rank / 8, rank % 8, 0x18 + rank % 8);
  log += "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
         "busbw #wrong\n#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)"
         "  (GB/s)  (GB/s)\n";
  for (std::uint64_t size = 8; log.size() < bytes; size += 8) {
    const double time_us = 20 + static_cast<double>(size) / 1.8e5;
    const double algbw = static_cast<double>(size) / (time_us * 1e3);
    log += fmt::format("{:>12} {:>13}     float     sum      -1 {:8.1f} {:7.2f} {:7.2f}      0 {:8.1f} {:7.2f} {:7.2f}"
                       "      0\n",
                       size, size / 4, time_us, algbw, algbw * 1.875, time_us, algbw, algbw * 1.875);
  }
  return log + "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.0\n";
}

std::string osu_latency_log(std::size_t bytes) {
  std::string log = "# OSU MPI Latency Test v7.3\n# Size          Latency (us)\n";
  for (std::uint64_t size = 1; log.size() < bytes; ++size)
    log += fmt::format("{:<18}{:>10.2f}\n", size, 1.5 + static_cast<double>(size) * 1e-4);
  return log;
}

// Google Benchmark JSON (--benchmark_format=json) with `entries` iteration runs.
std::string gbench_json(std::size_t entries) {
  std::string json = R"({"context": {"date": "2026-11-29T10:00:00+00:00", "host_name": "node01", )"
                     R"("executable": "./memcpy_bench", "num_cpus": 2, "library_version": "v1.9.4"},)"
                     "\n\"benchmarks\": [\n";
  for (std::size_t i = 0; i < entries; ++i) {
    const std::uint64_t bytes = 8 * (i + 1);
    const double time_ns = 20 + static_cast<double>(bytes) / 10.0;
    json +=
        fmt::format(R"({}{{"name": "BM_Memcpy/{}", "run_name": "BM_Memcpy/{}", "run_type": "iteration", )"
                    R"("repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": 1000000, )"
                    R"("real_time": {:.3f}, "cpu_time": {:.3f}, "time_unit": "ns", "bytes_per_second": {:.1f}}})",
                    i == 0 ? "" : ",\n", bytes, bytes, time_ns, time_ns, static_cast<double>(bytes) / time_ns * 1e9);
  }
  return json + "\n]}\n";
}

// nccl-tests JSON (-J FILE) of an all_reduce on 2 ranks with per-iteration timing, `entries` sizes.
std::string nccl_tests_json(std::size_t entries) {
  std::string json =
      R"({"version":3,"start_time":"2026-11-29 10:00:00","args":["./build/all_reduce_perf","-b","8","-J","ar.json"],)"
      R"("nccl_version":22809,"config":{"nthreads":1,"ngpus":1,"iterations":50,"devices":[)"
      R"({"rank":0,"hostname":"node01","device":0},{"rank":1,"hostname":"node02","device":0}]},"results":[)";
  for (std::size_t i = 0; i < entries; ++i) {
    const std::uint64_t bytes = 8 * (i + 1);
    const double time_us = 20 + static_cast<double>(bytes) / 1.8e5;
    const double algbw = static_cast<double>(bytes) / (time_us * 1e3);
    json += fmt::format(
        R"({}{{"size":{},"count":{},"type":"float","redop":"sum","root":"    -1",)"
        R"("out_of_place":{{"time":{:.6f},"alg_bw":{:.6f},"bus_bw":{:.6f},"nwrong":0.000000}},)"
        R"("out_of_place_per_iter":{{"min_us":{:.6f},"max_us":{:.6f},"p50_us":{:.6f},"p99_us":{:.6f},"cv_pct":1.0}},)"
        R"("in_place":{{"time":{:.6f},"alg_bw":{:.6f},"bus_bw":{:.6f},"nwrong":0.000000}}}})",
        i == 0 ? "" : ",", bytes, bytes / 4, time_us, algbw, algbw, time_us * 0.98, time_us * 1.1, time_us,
        time_us * 1.05, time_us, algbw, algbw);
  }
  return json + "]}\n";
}

void import_benchmark(benchmark::State& state, std::string (*generate)(std::size_t), std::size_t unit = megabyte) {
  const std::string log = generate(static_cast<std::size_t>(state.range(0)) * unit);
  std::size_t rows = 0;
  const std::size_t before = fb::perf::reset_heap_peak();
  for (auto _ : state) {
    const std::vector<fb::ResultSet> runs = fb::import_log_text(log, "generated.log", {});
    rows = runs.front().rows.size();
    benchmark::DoNotOptimize(rows);
  }
  const double input = static_cast<double>(log.size());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * log.size()));
  state.counters["input_MB"] = input / megabyte;
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["ns_per_input_byte"] = benchmark::Counter(input * static_cast<double>(state.iterations()),
                                                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["peak_heap_over_input"] = static_cast<double>(fb::perf::heap_peak_bytes() - before) / input;
}

void BM_ImportNcclTestsLog(benchmark::State& state) { import_benchmark(state, nccl_tests_log); }
void BM_ImportOsuLatencyLog(benchmark::State& state) { import_benchmark(state, osu_latency_log); }
void BM_ImportGbenchJson(benchmark::State& state) { import_benchmark(state, gbench_json, 1); }
void BM_ImportNcclTestsJson(benchmark::State& state) { import_benchmark(state, nccl_tests_json, 1); }

BENCHMARK(BM_ImportNcclTestsLog)->Arg(1)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ImportOsuLatencyLog)->Arg(1)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond)->Iterations(1);
// Entries, not megabytes: the sizes at which nlohmann's callback parser had taken 5.3, 31 and 392 s.
void at_json_entry_counts(benchmark::internal::Benchmark* registration) {
  registration->Arg(100'000)->Arg(300'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);
}
BENCHMARK(BM_ImportGbenchJson)->Apply(at_json_entry_counts);
BENCHMARK(BM_ImportNcclTestsJson)->Apply(at_json_entry_counts);

}  // namespace

BENCHMARK_MAIN();
