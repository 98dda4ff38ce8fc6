#include "benchmarks/core/pair_measurements.hpp"

#include <algorithm>

namespace fb {

std::vector<Measurement> pair_measurements(std::span<const RankPair> pairs, std::span<const double> seconds_by_rank,
                                           std::size_t iterations, std::span<const std::uint64_t> wrong_by_rank) {
  std::vector<Measurement> measurements;
  for (const RankPair& pair : pairs) {
    Measurement measurement;
    measurement.pair = pair;
    const auto src = static_cast<std::size_t>(pair.src);
    const auto dst = static_cast<std::size_t>(pair.dst);
    if (!wrong_by_rank.empty()) measurement.wrong = wrong_by_rank[src] + wrong_by_rank[dst];
    if (!seconds_by_rank.empty()) {
      // A message's time is the later of its two ends.
      for (std::size_t i = 0; i < iterations; ++i)
        measurement.unit_seconds.push_back(
            std::max(seconds_by_rank[src * iterations + i], seconds_by_rank[dst * iterations + i]));
    }
    measurements.push_back(std::move(measurement));
  }
  return measurements;
}

}  // namespace fb
