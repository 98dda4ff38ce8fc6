#pragma once
// The measurements of a round of pairs, assembled from every rank's own timings.

#include "benchmarks/core/benchmark_case.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace fb {

// One measurement per pair of a round from every rank's own results: `seconds_by_rank` holds
// `iterations` unit times per rank, rank after rank (empty except on the reporting rank);
// `wrong_by_rank` one count per rank, empty when the case was not checked.
std::vector<Measurement> pair_measurements(std::span<const RankPair> pairs, std::span<const double> seconds_by_rank,
                                           std::size_t iterations, std::span<const std::uint64_t> wrong_by_rank);

}  // namespace fb
