#include "diagnosis/alpha_beta_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

namespace fb {

using diagnosis::AlphaBetaFit;
using diagnosis::SizeTime;
using diagnosis::fit_alpha_beta;
namespace {

constexpr double alpha_us = 0.35;
constexpr double beta_us_per_byte = 1e-3 / 9.0;  // 9 GB/s
constexpr int repeats_per_size = 3;

double true_time_us(double bytes) { return alpha_us + beta_us_per_byte * bytes; }

// 8 bytes to 8 MiB, doubling, each size measured `repeats_per_size` times with relative noise
// uniform in [-amplitude, amplitude]. mt19937's output sequence is fixed by the standard, and the
// uniform value is formed here from its raw 32-bit outputs, so the points are the same everywhere.
std::vector<SizeTime> sweep(double amplitude, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::vector<SizeTime> points;
  for (double bytes = 8; bytes <= 8 << 20; bytes *= 2) {
    for (int r = 0; r < repeats_per_size; ++r) {
      const double uniform = static_cast<double>(generator()) / 4294967296.0;  // [0, 1)
      points.push_back({bytes, true_time_us(bytes) * (1 + amplitude * (2 * uniform - 1))});
    }
  }
  return points;
}

// The standard errors weighted least squares has when the relative noise has standard deviation
// `sigma`: sigma^2 (X' W X)^-1 with W = 1 / time^2 at the true times.
struct StandardErrors {
  double alpha_us = 0;
  double beta_us_per_byte = 0;
};

StandardErrors theoretical_errors(const std::vector<SizeTime>& points, double sigma) {
  double s = 0, sx = 0, sxx = 0;
  for (const SizeTime& p : points) {
    const double w = 1 / (true_time_us(p.bytes) * true_time_us(p.bytes));
    s += w;
    sx += w * p.bytes;
    sxx += w * p.bytes * p.bytes;
  }
  const double determinant = s * sxx - sx * sx;
  return {sigma * std::sqrt(sxx / determinant), sigma * std::sqrt(s / determinant)};
}

TEST(AlphaBetaFit, ExactLineIsRecoveredExactly) {
  const AlphaBetaFit fit = fit_alpha_beta(sweep(0, 1));
  EXPECT_NEAR(fit.alpha_us, alpha_us, 1e-9 * alpha_us);
  EXPECT_NEAR(fit.beta_us_per_byte, beta_us_per_byte, 1e-9 * beta_us_per_byte);
  EXPECT_NEAR(fit.bandwidth_gbps(), 9.0, 1e-8);
  EXPECT_NEAR(fit.r_squared, 1.0, 1e-12);
  EXPECT_EQ(fit.points, 21u * repeats_per_size);
  EXPECT_EQ(fit.distinct_sizes, 21u);
}

// Seeded noise of 5%: alpha and beta come back within four of the standard errors that noise
// implies, and the fit's own error estimates agree with those.
TEST(AlphaBetaFit, NoisySweepRecoversAlphaAndBetaWithinTheNoise) {
  constexpr double amplitude = 0.05;
  const double sigma = amplitude / std::sqrt(3.0);  // standard deviation of uniform [-a, a]
  for (const std::uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    SCOPED_TRACE(seed);
    const std::vector<SizeTime> points = sweep(amplitude, seed);
    const StandardErrors expected = theoretical_errors(points, sigma);
    const AlphaBetaFit fit = fit_alpha_beta(points);
    EXPECT_NEAR(fit.alpha_us, alpha_us, 4 * expected.alpha_us);
    EXPECT_NEAR(fit.beta_us_per_byte, beta_us_per_byte, 4 * expected.beta_us_per_byte);
    // The bound is tight: alpha within 3% although a single point is off by up to 5%.
    EXPECT_LT(4 * expected.alpha_us, 0.03 * alpha_us);
    EXPECT_GT(fit.alpha_stderr_us, expected.alpha_us / 2);
    EXPECT_LT(fit.alpha_stderr_us, expected.alpha_us * 2);
    EXPECT_GT(fit.beta_stderr_us_per_byte, expected.beta_us_per_byte / 2);
    EXPECT_LT(fit.beta_stderr_us_per_byte, expected.beta_us_per_byte * 2);
    EXPECT_LT(fit.r_squared, 1.0);
    EXPECT_GT(fit.r_squared, 0.99);
  }
}

TEST(AlphaBetaFit, FewerThanTwoSizesOrNoPositiveTimeIsRefused) {
  EXPECT_THROW(fit_alpha_beta(std::vector<SizeTime>{}), std::invalid_argument);
  EXPECT_THROW(fit_alpha_beta(std::vector<SizeTime>{{1024, 2.0}, {1024, 2.1}, {1024, 1.9}}), std::invalid_argument);
  EXPECT_THROW(fit_alpha_beta(std::vector<SizeTime>{{8, 1.0}, {1024, 0.0}}), std::invalid_argument);
  // Two sizes are a line through two points: no residuals, no error estimate.
  const AlphaBetaFit two = fit_alpha_beta(std::vector<SizeTime>{{0, 1.0}, {1000, 2.0}});
  EXPECT_NEAR(two.alpha_us, 1.0, 1e-12);
  EXPECT_NEAR(two.bandwidth_gbps(), 1.0, 1e-12);
  EXPECT_EQ(two.alpha_stderr_us, 0.0);
}

}  // namespace
}  // namespace fb
