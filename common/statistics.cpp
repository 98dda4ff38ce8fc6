#include "common/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace fb {

double quantile_of_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of an empty sample");
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const auto upper = std::min(lower + 1, sorted.size() - 1);
  const double weight = position - static_cast<double>(lower);
  return sorted[lower] + weight * (sorted[upper] - sorted[lower]);
}

TimingSummary summarize_times(std::span<const double> seconds) {
  if (seconds.empty()) throw std::invalid_argument("no iteration times to summarize");
  std::vector<double> sorted(seconds.begin(), seconds.end());
  std::sort(sorted.begin(), sorted.end());

  TimingSummary summary;
  summary.min_s = sorted.front();
  summary.max_s = sorted.back();
  summary.median_s = quantile_of_sorted(sorted, 0.5);
  summary.p99_s = quantile_of_sorted(sorted, 0.99);
  const double n = static_cast<double>(sorted.size());
  summary.mean_s = std::accumulate(sorted.begin(), sorted.end(), 0.0) / n;
  if (sorted.size() > 1 && summary.mean_s > 0) {
    double squared_deviation = 0;
    for (double s : sorted) squared_deviation += (s - summary.mean_s) * (s - summary.mean_s);
    summary.cv = std::sqrt(squared_deviation / (n - 1)) / summary.mean_s;
  }
  return summary;
}

}  // namespace fb
