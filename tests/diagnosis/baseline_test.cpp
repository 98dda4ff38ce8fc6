// Judging rows against the run store's history (diagnosis/baseline.hpp): every bound below is
// worked out by hand from the method's formulas, so a change to the median, the spread, its floor
// or the quantiles fails here.

#include "diagnosis/baseline.hpp"
#include "support/result_rows.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace fb::diagnosis {
namespace {

using ::testing::HasSubstr;

ResultRow with_busbw(ResultRow row, double busbw_gbps) {
  row.busbw_gbps = busbw_gbps;
  return row;
}

// One earlier run holding all_reduce 1M on 8 ranks at `busbw_gbps` (no spread of its own).
ResultSet run_at(const std::string& run_id, double busbw_gbps) {
  ResultSet set;
  set.provenance.run_id = run_id;
  ResultRow row = with_busbw(testing::collective_row("all_reduce", 1 << 20, 100), busbw_gbps);
  row.run_id = run_id;
  set.rows.push_back(row);
  return set;
}

// busbw 100, 102, 98, 101, 99: median 100; |log deviations| 0, .00995, .01005, .0198, .0202, so
// the MAD is log(100/99) = 0.010050 and the spread 1.4826 x that = 0.014900.
std::vector<ResultSet> five_runs() {
  return {run_at("b1", 100), run_at("b2", 102), run_at("b3", 98), run_at("b4", 101), run_at("b5", 99)};
}

double sigma_of_five_runs() { return 1.4826 * std::log(100.0 / 99.0) * std::sqrt(1 + std::numbers::pi / 10); }

TEST(Baseline, NormalQuantilesAreTheTabulatedOnes) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959964, 1e-6);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-9);
  EXPECT_NEAR(normal_quantile(0.995), 2.575829, 1e-6);
}

TEST(Baseline, WithinTheToleranceAtTheNoisyEndPasses) {
  const std::vector<ResultRow> rows{with_busbw(testing::collective_row("all_reduce", 1 << 20, 100), 99)};
  const BaselineVerdict verdict = judge_against_baseline(rows, five_runs());
  ASSERT_EQ(verdict.measurements.size(), 1U);
  const BaselineMeasurement& m = verdict.measurements[0];
  EXPECT_DOUBLE_EQ(m.baseline_median, 100);
  EXPECT_EQ(m.baseline_runs, 5U);
  EXPECT_NEAR(m.ratio, 0.99, 1e-12);
  ASSERT_TRUE(m.log_sigma);
  EXPECT_NEAR(*m.log_sigma, sigma_of_five_runs(), 1e-4);
  EXPECT_NEAR(*m.ratio_lower, 0.99 * std::exp(-1.959964 * sigma_of_five_runs()), 1e-4);  // 0.957
  EXPECT_EQ(m.decision, Decision::pass);
  EXPECT_EQ(verdict.decision, Decision::pass);
  EXPECT_THAT(m.statement, HasSubstr("across 5 runs"));
  EXPECT_EQ(verdict.baseline_run_ids, (std::vector<std::string>{"b1", "b2", "b3", "b4", "b5"}));
}

TEST(Baseline, WorseThanTheToleranceBeyondTheNoiseFails) {
  const std::vector<ResultRow> rows{with_busbw(testing::collective_row("all_reduce", 1 << 20, 100), 70)};
  const BaselineVerdict verdict = judge_against_baseline(rows, five_runs());
  const BaselineMeasurement& m = verdict.measurements.at(0);
  // upper bound 0.70 x exp(1.96 sigma) = 0.724: under 0.9 even at the good end of the noise.
  EXPECT_NEAR(*m.ratio_upper, 0.70 * std::exp(1.959964 * sigma_of_five_runs()), 1e-4);
  EXPECT_EQ(m.decision, Decision::fail);
  EXPECT_EQ(verdict.decision, Decision::fail);
}

TEST(Baseline, ARatioTheNoiseStraddlesIsInconclusiveNotAPass) {
  // 0.88: lower bound 0.844 < 0.9 <= upper bound 0.910.
  const std::vector<ResultRow> rows{with_busbw(testing::collective_row("all_reduce", 1 << 20, 100), 88)};
  const BaselineVerdict verdict = judge_against_baseline(rows, five_runs());
  const BaselineMeasurement& m = verdict.measurements.at(0);
  EXPECT_LT(*m.ratio_lower, 0.9);
  EXPECT_GE(*m.ratio_upper, 0.9);
  EXPECT_EQ(m.decision, Decision::inconclusive);
  EXPECT_EQ(verdict.decision, Decision::inconclusive);
  // A looser tolerance decides it.
  EXPECT_EQ(judge_against_baseline(rows, five_runs(), {.tolerance = 0.2, .confidence = 0.95}).decision, Decision::pass);
}

TEST(Baseline, ManyMeasurementsWidenTheFailSideOnly) {
  // Ten sizes: z for a FAIL is the quantile of 1 - 0.025 / 10 (2.807), for a PASS still 1.96.
  std::vector<ResultRow> rows;
  std::vector<ResultSet> runs = five_runs();
  for (int i = 1; i <= 10; ++i) {
    rows.push_back(with_busbw(testing::collective_row("all_reduce", 1ULL << (20 + i), 100), 70));
    for (ResultSet& run : runs) {
      ResultRow row = run.rows.front();
      row.bytes = 1ULL << (20 + i);
      run.rows.push_back(row);
    }
  }
  const BaselineVerdict verdict = judge_against_baseline(rows, runs);
  ASSERT_EQ(verdict.measurements.size(), 10U);
  EXPECT_NEAR(*verdict.measurements[0].ratio_upper, 0.70 * std::exp(normal_quantile(1 - 0.0025) * sigma_of_five_runs()),
              1e-4);
}

TEST(Baseline, ALatencyOpIsJudgedByItsTimeLowerBetter) {
  const auto latency_run = [](const std::string& id, double time_us) {
    ResultSet set;
    set.provenance.run_id = id;
    ResultRow row = testing::pair_row(0, 1, "node1", "node2", 1, 8);
    row.op = "latency";
    row.time_median_us = time_us;
    row.run_id = id;
    set.rows.push_back(row);
    return set;
  };
  const std::vector<ResultSet> runs{latency_run("l1", 2.0), latency_run("l2", 2.04), latency_run("l3", 1.96),
                                    latency_run("l4", 2.02), latency_run("l5", 1.98)};
  ResultRow slow = latency_run("now", 3.0).rows.front();
  const BaselineVerdict verdict = judge_against_baseline(std::vector<ResultRow>{slow}, runs);
  const BaselineMeasurement& m = verdict.measurements.at(0);
  EXPECT_EQ(m.value_name, "time");
  EXPECT_FALSE(m.higher_is_better);
  EXPECT_DOUBLE_EQ(m.baseline_median, 2.0);
  EXPECT_NEAR(m.ratio, 2.0 / 3.0, 1e-12);  // goodness: baseline / measured
  EXPECT_EQ(m.decision, Decision::fail);
}

TEST(Baseline, RunsThatAgreeByChanceDoNotMakeANoisyMeasurementExact) {
  // Three identical runs, but each row's iterations spread 50% (CV, and the fastest half the
  // median) over 20 iterations: the spread is floored at log(1 + 0.5 sqrt(pi / 40)) = 0.131, and
  // a 20% drop is not decided.
  const auto spread_half = [](ResultRow row) {
    row = testing::noisy(row, 0.5, 0.5);
    row.time_min_us = row.time_median_us * 0.5;
    return row;
  };
  std::vector<ResultSet> runs{run_at("b1", 100), run_at("b2", 100), run_at("b3", 100)};
  for (ResultSet& run : runs) run.rows.front() = spread_half(run.rows.front());
  const std::vector<ResultRow> rows{spread_half(with_busbw(testing::collective_row("all_reduce", 1 << 20, 100), 80))};
  const BaselineVerdict verdict = judge_against_baseline(rows, runs);
  const BaselineMeasurement& m = verdict.measurements.at(0);
  const double floor = std::log1p(0.5 * std::sqrt(std::numbers::pi / 40));
  EXPECT_NEAR(*m.log_sigma, floor * std::sqrt(1 + std::numbers::pi / 6), 1e-9);
  EXPECT_EQ(m.decision, Decision::inconclusive);
  EXPECT_THAT(m.spread_source, HasSubstr("the rows' medians vary more than the 3 runs do"));
  // Without that spread in the rows, the same three runs would call it a failure.
  std::vector<ResultSet> quiet{run_at("b1", 100), run_at("b2", 100), run_at("b3", 100)};
  const std::vector<ResultRow> quiet_rows{with_busbw(testing::collective_row("all_reduce", 1 << 20, 100), 80)};
  EXPECT_EQ(judge_against_baseline(quiet_rows, quiet).decision, Decision::fail);
}

TEST(Baseline, AFewVerySlowIterationsDoNotWidenTheFloor) {
  // CV 300% from a few iterations a neighbour's job slowed, but the fastest is 5% under the
  // median: the bulk spreads 5%, floor log(1 + 0.05 sqrt(pi / 40)) = 0.0140, and a 20% drop fails.
  std::vector<ResultSet> runs{run_at("b1", 100), run_at("b2", 100), run_at("b3", 100)};
  for (ResultSet& run : runs) run.rows.front() = testing::noisy(run.rows.front(), 3.0, 10.0);
  const std::vector<ResultRow> rows{
      testing::noisy(with_busbw(testing::collective_row("all_reduce", 1 << 20, 100), 80), 3.0, 10.0)};
  const BaselineMeasurement m = judge_against_baseline(rows, runs).measurements.at(0);
  EXPECT_NEAR(*m.log_sigma, std::log1p(0.05 * std::sqrt(std::numbers::pi / 40)) * std::sqrt(1 + std::numbers::pi / 6),
              1e-9);
  EXPECT_EQ(m.decision, Decision::fail);
}

TEST(Baseline, FewerThanThreeRunsUseTheRowsOwnSpreadAsCompareDoes) {
  std::vector<ResultSet> one{run_at("b1", 100)};
  one.front().rows.front() = testing::noisy(one.front().rows.front(), 0.03, 0.02);
  const std::vector<ResultRow> rows{
      testing::noisy(with_busbw(testing::collective_row("all_reduce", 1 << 20, 100), 70), 0.02, 0.01)};
  const BaselineVerdict verdict = judge_against_baseline(rows, one);
  const BaselineMeasurement& m = verdict.measurements.at(0);
  EXPECT_NEAR(*m.log_sigma, std::log(1 + 0.03 + 0.02), 1e-12);
  EXPECT_NEAR(*m.ratio_upper, 0.70 * 1.05, 1e-12);
  EXPECT_EQ(m.decision, Decision::fail);
  EXPECT_THAT(m.spread_source, HasSubstr("1 baseline run: the rows' own spread"));
}

TEST(Baseline, NoSpreadAnywhereIsInconclusive) {
  const std::vector<ResultSet> one{run_at("b1", 100)};  // one time per size: no spread recorded
  const std::vector<ResultRow> rows{with_busbw(testing::collective_row("all_reduce", 1 << 20, 100), 50)};
  const BaselineVerdict verdict = judge_against_baseline(rows, one);
  EXPECT_EQ(verdict.measurements.at(0).decision, Decision::inconclusive);
  EXPECT_FALSE(verdict.measurements.at(0).log_sigma);
  EXPECT_THAT(verdict.measurements.at(0).statement, HasSubstr("no spread known"));
}

TEST(Baseline, NothingInCommonJudgesNothingAndIsInconclusive) {
  const std::vector<ResultRow> rows{with_busbw(testing::collective_row("all_gather", 1 << 20, 100), 99)};
  const BaselineVerdict verdict = judge_against_baseline(rows, five_runs());
  EXPECT_TRUE(verdict.measurements.empty());
  EXPECT_EQ(verdict.unmatched, 1U);
  EXPECT_EQ(verdict.decision, Decision::inconclusive);
  EXPECT_THAT(verdict.statement, HasSubstr("holds none of the 1 measurements"));
  EXPECT_EQ(judge_against_baseline(rows, {}).decision, Decision::inconclusive);
}

TEST(Baseline, ChecksForTheRecordAreOnePerOpWithTheWorstDecision) {
  std::vector<ResultRow> rows{with_busbw(testing::collective_row("all_reduce", 1 << 20, 100), 99)};
  ResultRow other = with_busbw(testing::collective_row("all_reduce", 1 << 20, 100, 4), 70);
  rows.push_back(other);
  std::vector<ResultSet> runs = five_runs();
  for (ResultSet& run : runs) {
    ResultRow row = run.rows.front();
    row.nranks = 4;
    run.rows.push_back(row);
  }
  const BaselineVerdict verdict = judge_against_baseline(rows, runs);
  const std::vector<CheckVerdict> checks = baseline_check_verdicts(verdict, "the last 5 runs");
  ASSERT_EQ(checks.size(), 1U);
  EXPECT_EQ(checks[0].decision, Decision::fail);
  EXPECT_EQ(checks[0].measurements.size(), 2U);
  EXPECT_EQ(checks[0].unit, "x baseline");
  EXPECT_DOUBLE_EQ(checks[0].limit, 0.9);
  EXPECT_EQ(checks[0].check.name, "all_reduce busbw within 10% of the baseline");
  EXPECT_THAT(checks[0].statement, HasSubstr("1 worse than 0.90 x beyond the noise"));
}

}  // namespace
}  // namespace fb::diagnosis
