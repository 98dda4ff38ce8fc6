#pragma once
// Turns a backend's raw timings into a results row: statistics, algbw, busbw.

#include "benchmarks/core/backend.hpp"
#include "benchmarks/core/benchmark_case.hpp"
#include "results/result_row.hpp"

#include <string>

namespace fb {

struct RunContext {
  std::string run_id;
  std::string backend;
  RankPlacement placement;
};

ResultRow make_result_row(const BenchmarkCase& benchmark_case, const Measurement& measurement,
                          const RunContext& context);

// "host" for host_memory, "GPU3" for GPU ordinal 3.
std::string device_label(int endpoint);

// GB/s (decimal, as nccl-tests and OSU print) for `bytes` moved in `seconds`.
double gigabytes_per_second(double bytes, double seconds);

// ISO 8601 UTC with seconds, "2026-11-22T23:15:04Z".
std::string utc_timestamp_now();

}  // namespace fb
