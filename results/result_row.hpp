#pragma once
// One measurement (or prediction) in the fabricbench results format. CSV columns and JSON keys
// are these field names; the schema string versions them. Every stage reads and writes this.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fb {

inline constexpr std::string_view results_schema = "fabricbench.results.v1";

struct ResultRow {
  std::string run_id;
  std::string backend;      // mpi, nccl, cuda, model (a prediction), or an importer's name
  std::string op;           // all_reduce, all_gather, ..., latency, bw, bibw
  std::string dtype;        // nccl-tests names: int8, int32, half, float, double, ...
  std::string redop;        // sum, prod, min, max, or "none" for data-movement ops
  std::optional<int> root;  // broadcast/reduce root; empty for rootless ops
  bool in_place = false;
  int nranks = 0;
  int nodes = 0;
  int ranks_per_node = 0;       // the largest number of ranks on one node
  std::optional<int> src_rank;  // point-to-point and pairwise rows; device copies: GPU ordinal, -1 host
  std::optional<int> dst_rank;
  std::string src_host;
  std::string dst_host;
  std::string src_device;               // device copies: "host" or "GPU3", the memory read
  std::string dst_device;               // and the memory written; empty for rank-to-rank rows
  std::optional<int> round;             // pairwise rows: the round of disjoint pairs it ran in
  std::optional<int> concurrent_flows;  // pair rows: how many pairs were in flight at once (1: alone)
  std::optional<int> repetition;        // soak runs (--repeat, --duration): the sweep it belongs to, from 0
  std::uint64_t bytes = 0;              // nccl-tests size semantics (whole buffer for all_gather etc.)
  std::uint64_t count = 0;              // elements per rank buffer, as nccl-tests prints it
  int iterations = 0;
  double time_min_us = 0;  // slowest rank per iteration, then statistics over iterations
  double time_median_us = 0;
  double time_p99_us = 0;
  double time_max_us = 0;
  double time_cv = 0;  // coefficient of variation (stddev / mean) of the iteration times
  // The mean of the slowest rank's iteration times, the number OSU prints, beside the median the
  // bandwidths use; empty where the source gave none (imported logs, files written before it).
  std::optional<double> time_mean_us;
  // Time statistics the source never reported, space-separated field names ("time_min_us
  // time_p99_us time_max_us time_cv"): imported logs print one time per size. Such a field holds
  // the reported time (0 for time_cv) only to keep the columns numeric; accept and compare treat
  // it as not available. Empty for fabricbench's own measurements.
  std::string unreported_statistics;
  double algbw_gbps = 0;               // from the median time, decimal GB/s
  std::optional<double> busbw_gbps;    // undefined for a single rank
  std::optional<std::uint64_t> wrong;  // elements that failed validation; empty when not checked
  std::string timestamp;               // ISO 8601 UTC, when the row was measured
  // What the topology model expects (topology/row_expectation.hpp); empty without a topology or
  // when the model has no answer for the row. Files written before these columns read as empty.
  std::optional<double> expected_busbw_gbps;  // collectives: busbw; pair ops: the pair's bandwidth
  std::optional<double> expected_time_us;     // latency ops: the one-way time of this size
  std::optional<double> efficiency_pct;       // measured / expected busbw x 100; latency: expected / measured time
  // How the model got its prediction or expectation (topology/collective_model.hpp): NCCL's
  // algorithm and protocol it chose, its channels, and the link that bounds the bandwidth.
  std::string model_algorithm;
  std::string model_protocol;
  std::optional<int> model_channels;
  std::string model_limit;
  // The model's 80% prediction interval (topology/prediction_interval.hpp): predicted rows only.
  std::optional<double> busbw_low_gbps;
  std::optional<double> busbw_high_gbps;
  std::optional<double> time_low_us;
  std::optional<double> time_high_us;

  bool operator==(const ResultRow&) const = default;
};

// False when `field` (time_min_us, time_p99_us, ...) is one the row's source did not report.
bool reports_statistic(const ResultRow& row, std::string_view field);

}  // namespace fb
