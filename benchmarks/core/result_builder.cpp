#include "benchmarks/core/result_builder.hpp"

#include "common/statistics.hpp"

#include <chrono>
#include <fmt/chrono.h>

namespace fb {

std::string device_label(int endpoint) {
  return endpoint == host_memory ? std::string("host") : fmt::format("GPU{}", endpoint);
}

double gigabytes_per_second(double bytes, double seconds) { return seconds > 0 ? bytes / seconds / 1e9 : 0.0; }

std::string utc_timestamp_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

ResultRow make_result_row(const BenchmarkCase& benchmark_case, const Measurement& measurement,
                          const RunContext& context) {
  const OpTraits& op = *benchmark_case.op;
  const TimingSummary times = summarize_times(measurement.unit_seconds);
  constexpr double us_per_s = 1e6;

  ResultRow row;
  row.run_id = context.run_id;
  row.backend = context.backend;
  row.op = std::string(op.name);
  row.dtype = std::string(name_of(benchmark_case.dtype));
  row.redop = op.takes_redop ? std::string(name_of(benchmark_case.redop)) : "none";
  if (op.takes_root) row.root = benchmark_case.root;
  row.in_place = benchmark_case.placement == Placement::in_place;
  row.nranks = context.placement.nranks;
  row.nodes = context.placement.nodes;
  row.ranks_per_node = context.placement.ranks_per_node;
  if (op.op_class != OpClass::collective) {
    const RankPair pair = measurement.pair.value_or(RankPair{benchmark_case.src_rank, benchmark_case.dst_rank});
    row.src_rank = pair.src;
    row.dst_rank = pair.dst;
    if (op.op_class == OpClass::device_copy) {
      // Both ends are memories of the measuring process's own host.
      row.src_host = row.dst_host = context.placement.rank_hosts.at(static_cast<std::size_t>(context.placement.rank));
      row.src_device = device_label(pair.src);
      row.dst_device = device_label(pair.dst);
    } else {
      row.src_host = context.placement.rank_hosts.at(static_cast<std::size_t>(pair.src));
      row.dst_host = context.placement.rank_hosts.at(static_cast<std::size_t>(pair.dst));
    }
  }
  row.round = measurement.round;
  row.concurrent_flows = measurement.concurrent_flows;
  row.bytes = benchmark_case.bytes;
  row.count = benchmark_case.count;
  row.iterations = static_cast<int>(measurement.unit_seconds.size());
  row.time_min_us = times.min_s * us_per_s;
  row.time_median_us = times.median_s * us_per_s;
  row.time_p99_us = times.p99_s * us_per_s;
  row.time_max_us = times.max_s * us_per_s;
  row.time_cv = times.cv;
  row.time_mean_us = measurement.mean_unit_seconds.value_or(times.mean_s) * us_per_s;
  row.algbw_gbps =
      gigabytes_per_second(static_cast<double>(benchmark_case.bytes) * op.algbw_bytes_factor, times.median_s);
  if (const auto factor = busbw_factor_for(op, context.placement.nranks)) row.busbw_gbps = row.algbw_gbps * *factor;
  row.wrong = measurement.wrong;
  row.timestamp = utc_timestamp_now();
  return row;
}

}  // namespace fb
