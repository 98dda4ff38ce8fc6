// Imports generated nccl-tests and OSU logs of 1, 10 and 100 MB in memory (import_log_text: the
// parse alone, no file I/O) and reports the time per input byte and the peak heap the import
// held, over the input size. Linear means both ratios stay flat as the input grows.
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

void import_benchmark(benchmark::State& state, std::string (*generate)(std::size_t)) {
  const std::string log = generate(static_cast<std::size_t>(state.range(0)) * megabyte);
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

BENCHMARK(BM_ImportNcclTestsLog)->Arg(1)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ImportOsuLatencyLog)->Arg(1)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
