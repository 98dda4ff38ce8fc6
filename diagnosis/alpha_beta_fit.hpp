#pragma once
// The latency-bandwidth (alpha-beta) model of one link class fitted to a measured size sweep:
// time = alpha + beta * bytes, by weighted least squares.
//
// Timing noise is relative (a few percent of the time, whatever the size), so each point weighs
// 1 / time^2: the fit minimises relative residuals. Plain least squares would let the largest
// sizes, whose absolute noise dwarfs the whole latency, decide alpha.

#include <cstddef>
#include <span>

namespace fb::diagnosis {

struct SizeTime {
  double bytes = 0;
  double time_us = 0;
};

struct AlphaBetaFit {
  double alpha_us = 0;
  double beta_us_per_byte = 0;
  // Standard errors from the weighted residuals; 0 with exactly two points.
  double alpha_stderr_us = 0;
  double beta_stderr_us_per_byte = 0;
  double r_squared = 0;  // weighted coefficient of determination, 1 for a perfect line
  std::size_t points = 0;
  std::size_t distinct_sizes = 0;

  // 1 / beta in decimal GB/s (1 GB/s is 1e3 bytes per microsecond).
  double bandwidth_gbps() const { return 1e-3 / beta_us_per_byte; }
};

std::size_t distinct_sizes(std::span<const SizeTime> points);

// Throws std::invalid_argument with fewer than 2 distinct sizes, or a time that is not positive.
AlphaBetaFit fit_alpha_beta(std::span<const SizeTime> points);

}  // namespace fb::diagnosis
