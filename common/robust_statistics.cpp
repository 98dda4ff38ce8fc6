#include "common/robust_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fb {

double median_of(std::span<const double> values) {
  if (values.empty()) throw std::invalid_argument("median of no values");
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t middle = sorted.size() / 2;
  return sorted.size() % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

std::vector<double> modified_z_scores(std::span<const double> values) {
  std::vector<double> scores(values.size(), 0.0);
  if (values.empty()) return scores;
  const double center = median_of(values);
  std::vector<double> deviations;
  for (double value : values) deviations.push_back(std::abs(value - center));
  const double mad = median_of(deviations);
  double scale = 0;
  if (mad > 0) {
    scale = mad / 0.6745;
  } else {
    double mean_deviation = 0;
    for (double deviation : deviations) mean_deviation += deviation;
    mean_deviation /= static_cast<double>(deviations.size());
    scale = 1.2533 * mean_deviation;
  }
  if (scale == 0) return scores;
  for (std::size_t i = 0; i < values.size(); ++i) scores[i] = (values[i] - center) / scale;
  return scores;
}

}  // namespace fb
