#pragma once

#include <span>

namespace fb {

// Summary of per-iteration times. Percentiles interpolate linearly between order statistics, so
// p99 of 20 samples lies between the two largest rather than snapping to the maximum.
struct TimingSummary {
  double min_s = 0;
  double median_s = 0;
  double p99_s = 0;
  double max_s = 0;
  double mean_s = 0;
  double cv = 0;  // sample standard deviation / mean; 0 for a single sample
};

// Throws std::invalid_argument on an empty sample.
TimingSummary summarize_times(std::span<const double> seconds);

// The q-quantile (0 <= q <= 1) of an ascending sample.
double quantile_of_sorted(std::span<const double> sorted, double q);

}  // namespace fb
