#include "common/statistics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

namespace fb {
namespace {

TEST(SummarizeTimes, OneToHundred) {
  std::vector<double> samples(100);
  std::iota(samples.begin(), samples.end(), 1.0);
  // Order must not matter: the harness hands times over in measurement order.
  std::shuffle(samples.begin(), samples.end(), std::mt19937(42));
  const TimingSummary s = summarize_times(samples);
  EXPECT_DOUBLE_EQ(s.min_s, 1);
  EXPECT_DOUBLE_EQ(s.max_s, 100);
  EXPECT_DOUBLE_EQ(s.median_s, 50.5);
  // Position 0.99 * 99 = 98.01 between the order statistics 99 and 100.
  EXPECT_DOUBLE_EQ(s.p99_s, 99.01);
  EXPECT_DOUBLE_EQ(s.mean_s, 50.5);
  // Sample variance of 1..n is n(n+1)/12.
  EXPECT_NEAR(s.cv, std::sqrt(100.0 * 101.0 / 12.0) / 50.5, 1e-12);
}

TEST(SummarizeTimes, SingleSampleHasZeroSpread) {
  const std::vector<double> samples{2.5e-6};
  const TimingSummary s = summarize_times(samples);
  EXPECT_EQ(s.min_s, 2.5e-6);
  EXPECT_EQ(s.median_s, 2.5e-6);
  EXPECT_EQ(s.p99_s, 2.5e-6);
  EXPECT_EQ(s.max_s, 2.5e-6);
  EXPECT_EQ(s.cv, 0);
}

TEST(SummarizeTimes, EvenCountMedianIsTheMeanOfTheMiddleTwo) {
  const std::vector<double> samples{4, 1, 3, 10};
  const TimingSummary s = summarize_times(samples);
  EXPECT_DOUBLE_EQ(s.median_s, 3.5);
  // mean 4.5, squared deviations 12.25 + 2.25 + 0.25 + 30.25 = 45 over n - 1 = 3.
  EXPECT_NEAR(s.cv, std::sqrt(15.0) / 4.5, 1e-12);
}

TEST(SummarizeTimes, EmptySampleThrows) {
  EXPECT_THROW(summarize_times({}), std::invalid_argument);
  EXPECT_THROW(quantile_of_sorted({}, 0.5), std::invalid_argument);
}

TEST(QuantileOfSorted, EndpointsAreMinAndMax) {
  const std::vector<double> sorted{1, 2, 7};
  EXPECT_EQ(quantile_of_sorted(sorted, 0), 1);
  EXPECT_EQ(quantile_of_sorted(sorted, 1), 7);
  EXPECT_DOUBLE_EQ(quantile_of_sorted(sorted, 0.75), 4.5);
}

}  // namespace
}  // namespace fb
