#pragma once
// The pairwise bandwidth matrix: algbw from every source to every destination, built from rows
// that name both endpoints (src_rank/dst_rank or src_host/dst_host).

#include "results/result_row.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb {

struct PairwiseMatrix {
  std::string op;
  std::uint64_t bytes = 0;                                 // the largest size measured for every pair
  std::vector<std::string> endpoints;                      // "0 (node01)", or host names without ranks
  std::vector<std::vector<std::optional<double>>> algbw_gbps;  // [src][dst]; empty where not measured
  double median_gbps = 0;                                  // over the measured cells

  // A cell is slow under 90% of the median of its matrix: the same rule as the acceptance
  // pairwise check's default, with the peers' median standing in for the expected bandwidth.
  static constexpr double slow_fraction = 0.9;
  bool is_slow(double cell_gbps) const { return cell_gbps < slow_fraction * median_gbps; }
};

// One matrix per op that has rows with both endpoints, at that op's largest size (small sizes
// measure latency). Several rows for one cell (in- and out-of-place, repeated runs) keep the median.
std::vector<PairwiseMatrix> build_pairwise_matrices(std::span<const ResultRow> rows);

}  // namespace fb
