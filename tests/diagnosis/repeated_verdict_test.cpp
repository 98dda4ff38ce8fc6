// The verdict over repetitions on synthetic measurements whose true median is known: false accepts
// and false rejects stay at or below the documented rate (alpha = 2.5% each at 95% confidence),
// whatever the distribution, clear cases are decided, and noisy ones come out INCONCLUSIVE with a
// repetition count that does decide. Fixed seeds: the rates are those of these draws, every run.

#include "diagnosis/repeated_verdict.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace fb::diagnosis {
namespace {

constexpr double alpha = 0.025;
constexpr int trials = 4000;
// The observed rate of an event whose true probability is at most alpha stays under alpha plus
// three binomial standard deviations of `trials` draws (and the bound is exact, so mostly far under).
const double rate_tolerance = alpha + 3 * std::sqrt(alpha * (1 - alpha) / trials);

using Draw = std::function<double(std::mt19937_64&)>;

// Each family has its median at `median` exactly.
Draw normal_around(double median, double sigma) {
  return [=](std::mt19937_64& rng) { return std::normal_distribution<double>(median, sigma)(rng); };
}
Draw lognormal_around(double median, double log_sigma) {
  return [=](std::mt19937_64& rng) { return median * std::exp(std::normal_distribution<double>(0, log_sigma)(rng)); };
}
Draw cauchy_around(double median, double scale) {
  return [=](std::mt19937_64& rng) { return std::cauchy_distribution<double>(median, scale)(rng); };
}

struct Rates {
  double pass = 0;
  double fail = 0;
  double inconclusive = 0;
};

Rates decision_rates(const Draw& draw, std::size_t repetitions, double limit, bool higher_is_better, unsigned seed,
                     int runs = trials) {
  std::mt19937_64 rng(seed);
  Rates rates;
  std::vector<double> samples(repetitions);
  for (int t = 0; t < runs; ++t) {
    for (double& x : samples) x = draw(rng);
    switch (judge_against_limit(samples, limit, higher_is_better).decision) {
      case Decision::pass: rates.pass += 1.0 / runs; break;
      case Decision::fail: rates.fail += 1.0 / runs; break;
      case Decision::inconclusive: rates.inconclusive += 1.0 / runs; break;
    }
  }
  return rates;
}

TEST(RepeatedVerdict, FewestRepetitionsThatBoundAMedian) {
  EXPECT_EQ(fewest_repetitions_for(0.025), 6u);  // 2^-6 = 1.6% <= 2.5% < 2^-5
  EXPECT_EQ(fewest_repetitions_for(0.05), 5u);
  EXPECT_EQ(fewest_repetitions_for(0.0025), 9u);
}

TEST(RepeatedVerdict, OrderStatisticBoundsOfTenRepetitions) {
  // n = 10: P(B <= 1) = 11/1024 = 1.07% <= 2.5% < P(B <= 2) = 5.5%, so the 2nd smallest and the
  // 2nd largest are the bounds, each wrong with probability 1.07%.
  const std::vector<double> samples{9, 1, 8, 2, 7, 3, 6, 4, 5, 10};
  const SampleVerdict pass = judge_against_limit(samples, 2, true);
  EXPECT_EQ(pass.decision, Decision::pass);
  EXPECT_DOUBLE_EQ(*pass.lower, 2);
  EXPECT_DOUBLE_EQ(*pass.upper, 9);
  EXPECT_DOUBLE_EQ(pass.median, 5.5);
  EXPECT_NEAR(*pass.error_probability, 11.0 / 1024, 1e-12);
  EXPECT_EQ(judge_against_limit(samples, 2.5, true).decision, Decision::inconclusive);
  EXPECT_EQ(judge_against_limit(samples, 9.5, true).decision, Decision::fail);
  // Times: lower is better, the bounds swap roles.
  EXPECT_EQ(judge_against_limit(samples, 9, false).decision, Decision::pass);
  EXPECT_EQ(judge_against_limit(samples, 1.5, false).decision, Decision::fail);
}

TEST(RepeatedVerdict, TooFewRepetitionsAreInconclusiveAndSayHowManyWould) {
  // Five identical values far above the limit: 2^-5 = 3.1% > 2.5%, so no order statistic bounds
  // the median at that risk. Not a pass; six repetitions would do.
  const std::vector<double> samples(5, 100.0);
  const SampleVerdict verdict = judge_against_limit(samples, 10, true);
  EXPECT_EQ(verdict.decision, Decision::inconclusive);
  EXPECT_FALSE(verdict.lower.has_value());
  EXPECT_EQ(verdict.repetitions_needed, 6u);
  const std::vector<double> single{100.0};
  EXPECT_EQ(judge_against_limit(single, 10, true).decision, Decision::inconclusive);
  EXPECT_EQ(judge_against_limit(std::vector<double>{}, 10, true).decision, Decision::inconclusive);
}

TEST(RepeatedVerdict, MedianOnTheLimitNeedsNoCount) {
  const std::vector<double> samples{8, 9, 10, 10, 10, 11, 12, 10, 10, 10};
  const SampleVerdict verdict = judge_against_limit(samples, 10, true);
  EXPECT_EQ(verdict.decision, Decision::inconclusive);
  EXPECT_FALSE(verdict.repetitions_needed.has_value());
  EXPECT_NE(describe(verdict, 10, true, "GB/s").find("no number of repetitions decides"), std::string::npos);
}

// The worst case for a false accept is a true median just under the limit, the worst case for a
// false reject one exactly on it: every other true value errs less often.
TEST(RepeatedVerdict, FalseAcceptsAtMostAlphaForEveryDistribution) {
  const double limit = 100;
  const double just_under = limit * (1 - 1e-9);
  for (const std::size_t n : {6u, 10u, 30u}) {
    SCOPED_TRACE(n);
    EXPECT_LE(decision_rates(normal_around(just_under, 5), n, limit, true, 1).pass, rate_tolerance);
    EXPECT_LE(decision_rates(lognormal_around(just_under, 0.3), n, limit, true, 2).pass, rate_tolerance);
    EXPECT_LE(decision_rates(cauchy_around(just_under, 10), n, limit, true, 3).pass, rate_tolerance);
    // Times: a true median just over the limit.
    EXPECT_LE(decision_rates(lognormal_around(limit * (1 + 1e-9), 0.3), n, limit, false, 4).pass, rate_tolerance);
  }
}

TEST(RepeatedVerdict, FalseRejectsAtMostAlphaForEveryDistribution) {
  const double limit = 100;
  for (const std::size_t n : {6u, 10u, 30u}) {
    SCOPED_TRACE(n);
    EXPECT_LE(decision_rates(normal_around(limit, 5), n, limit, true, 5).fail, rate_tolerance);
    EXPECT_LE(decision_rates(lognormal_around(limit, 0.3), n, limit, true, 6).fail, rate_tolerance);
    EXPECT_LE(decision_rates(cauchy_around(limit, 10), n, limit, true, 7).fail, rate_tolerance);
    EXPECT_LE(decision_rates(lognormal_around(limit, 0.3), n, limit, false, 8).fail, rate_tolerance);
  }
}

// A 5% margin against 2% noise: ten repetitions decide it nearly always, in both directions (the
// 2nd smallest of 10 is under the limit only if two values fall 2.5 sigma low: 0.2% of the time).
TEST(RepeatedVerdict, ClearCasesAreDecided) {
  const Rates good = decision_rates(normal_around(105, 2), 10, 100, true, 9);
  EXPECT_GE(good.pass, 0.95);
  const Rates bad = decision_rates(normal_around(95, 2), 10, 100, true, 10);
  EXPECT_GE(bad.fail, 0.95);
  EXPECT_LE(bad.pass, 0.0);
}

// A stressed rank: repetitions spread over a factor of two (log sigma 0.6) around a median 10%
// above the limit. A coin flip on the median would pass this most of the time; ten repetitions
// cannot tell, so nearly every trial is INCONCLUSIVE, and none is a FAIL.
TEST(RepeatedVerdict, NoisyCasesAreInconclusive) {
  const Rates noisy = decision_rates(lognormal_around(110, 0.6), 10, 100, true, 11);
  EXPECT_GE(noisy.inconclusive, 0.90);
  EXPECT_LE(noisy.pass, rate_tolerance + 0.02);  // a pass is right here, only rare
  EXPECT_LE(noisy.fail, rate_tolerance);
}

// The count an INCONCLUSIVE names is an estimate of where the bound reaches the limit, from the
// median and spread of the repetitions at hand. From a typical ten (the distribution's deciles,
// so that the estimate is not one lucky draw's) it lands where about half of the trials decide,
// and twice as many repetitions decide most.
TEST(RepeatedVerdict, TheNamedRepetitionCountDecides) {
  std::mt19937_64 rng(12);
  const Draw draw = lognormal_around(110, 0.6);
  std::vector<double> population(100000);
  for (double& x : population) x = draw(rng);
  std::sort(population.begin(), population.end());
  std::vector<double> typical;
  for (int i = 0; i < 10; ++i) typical.push_back(population[population.size() * (2 * i + 1) / 20]);
  const SampleVerdict verdict = judge_against_limit(typical, 100, true);
  ASSERT_EQ(verdict.decision, Decision::inconclusive);
  ASSERT_TRUE(verdict.repetitions_needed.has_value());
  const std::size_t needed = *verdict.repetitions_needed;
  // The asymptotic answer: (1.96 x 1 / (2 f(median)) / 10)^2 with f the lognormal's density at
  // its median, 1 / (110 x 0.6 x sqrt(2 pi)): 263.
  EXPECT_GT(needed, 150u);
  EXPECT_LT(needed, 400u);
  EXPECT_GE(decision_rates(draw, needed, 100, true, 13, 400).pass, 0.35);
  EXPECT_GE(decision_rates(draw, 2 * needed, 100, true, 14, 400).pass, 0.70);
}

}  // namespace
}  // namespace fb::diagnosis
