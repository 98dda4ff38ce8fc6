#include "diagnosis/alpha_beta_fit.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <stdexcept>

namespace fb::diagnosis {

std::size_t distinct_sizes(std::span<const SizeTime> points) {
  std::set<double> sizes;
  for (const SizeTime& p : points) sizes.insert(p.bytes);
  return sizes.size();
}

AlphaBetaFit fit_alpha_beta(std::span<const SizeTime> points) {
  AlphaBetaFit fit;
  fit.points = points.size();
  fit.distinct_sizes = distinct_sizes(points);
  if (fit.distinct_sizes < 2)
    throw std::invalid_argument(fmt::format("{} distinct size{}: a fit of time against size needs at least 2",
                                            fit.distinct_sizes, fit.distinct_sizes == 1 ? "" : "s"));
  for (const SizeTime& p : points)
    if (!(p.time_us > 0) || !std::isfinite(p.time_us))
      throw std::invalid_argument(
          fmt::format("a time of {} us at {} bytes: times must be positive", p.time_us, p.bytes));

  // Centred weighted sums keep the normal equations well conditioned across eight decades of size.
  double weight_sum = 0, mean_bytes = 0, mean_time = 0;
  for (const SizeTime& p : points) {
    const double w = 1 / (p.time_us * p.time_us);
    weight_sum += w;
    mean_bytes += w * p.bytes;
    mean_time += w * p.time_us;
  }
  mean_bytes /= weight_sum;
  mean_time /= weight_sum;
  double sxx = 0, sxy = 0, syy = 0;
  for (const SizeTime& p : points) {
    const double w = 1 / (p.time_us * p.time_us);
    sxx += w * (p.bytes - mean_bytes) * (p.bytes - mean_bytes);
    sxy += w * (p.bytes - mean_bytes) * (p.time_us - mean_time);
    syy += w * (p.time_us - mean_time) * (p.time_us - mean_time);
  }
  fit.beta_us_per_byte = sxy / sxx;
  fit.alpha_us = mean_time - fit.beta_us_per_byte * mean_bytes;

  double residual_sum = 0;
  for (const SizeTime& p : points) {
    const double residual = p.time_us - (fit.alpha_us + fit.beta_us_per_byte * p.bytes);
    residual_sum += residual * residual / (p.time_us * p.time_us);
  }
  fit.r_squared = syy > 0 ? 1 - residual_sum / syy : 1.0;
  if (points.size() > 2) {
    const double residual_variance = residual_sum / static_cast<double>(points.size() - 2);
    fit.beta_stderr_us_per_byte = std::sqrt(residual_variance / sxx);
    fit.alpha_stderr_us = std::sqrt(residual_variance * (1 / weight_sum + mean_bytes * mean_bytes / sxx));
  }
  return fit;
}

}  // namespace fb::diagnosis
