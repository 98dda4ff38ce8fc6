#pragma once
// The pairwise matrix: algbw (latency ops: the median time) from every source to every
// destination, built from rows that name both endpoints (src_rank/dst_rank or src_host/dst_host).

#include "results/result_row.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb {

struct PairwiseMatrix {
  std::string op;
  std::uint64_t bytes = 0;             // the largest size measured for every pair
  std::vector<std::string> endpoints;  // "0 (node01)", or host names without ranks
  // Latency ops (latency, pairwise_latency) hold the median time in us; the others algbw in GB/s.
  bool latency = false;
  std::vector<std::vector<std::optional<double>>> values;  // [src][dst]; empty where not measured
  double median = 0;                                       // over the measured cells

  std::string_view unit() const { return latency ? "us" : "GB/s"; }
  // A cell is slow under 90% of the median of its matrix (a time over median / 0.9): the same
  // rule as the acceptance pairwise check's default, the peers' median standing in for the
  // expected bandwidth.
  static constexpr double slow_fraction = 0.9;
  bool is_slow(double cell) const { return latency ? cell * slow_fraction > median : cell < slow_fraction * median; }
};

// One matrix per op that has rows with both endpoints and at least 3 endpoints (one pair is a
// plot and a table, not a matrix), at that op's largest size (latency ops: its smallest). concurrent
// is left out: its pairs are measured alone and together, shown side by side instead. Several rows for one cell (in-
// and out-of-place, repeated runs) keep the median.
std::vector<PairwiseMatrix> build_pairwise_matrices(std::span<const ResultRow> rows);

}  // namespace fb
