// Drift detection (diagnosis/drift.hpp) on series built to known shapes: the run a step began,
// how many runs it takes to flag it, that one wild run is not a change, and a second change after
// the first.

#include "diagnosis/drift.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace fb::diagnosis {
namespace {

// 100 +- 0.5%, alternating (even runs high, odd runs low): a spread of 0.74% (1.4826 x 0.5%).
std::vector<double> stable(std::size_t runs) {
  std::vector<double> values;
  for (std::size_t i = 0; i < runs; ++i) values.push_back(100 * (i % 2 == 0 ? 1.005 : 0.995));
  return values;
}

TEST(Baseline, IsTheMedianAndTheScaledMedianAbsoluteDeviationOfTheLogs) {
  const std::vector<double> values{100, 110, 90, 100, 1000};
  const Baseline b = baseline_of(values);
  EXPECT_DOUBLE_EQ(b.median, 100);
  // |log deviations|: 0, log 1.1, log(10/9), 0, log 10 -> median log 1.1 (0.0953).
  EXPECT_NEAR(b.log_spread, 1.4826 * std::log(1.1), 1e-12);
  EXPECT_EQ(b.runs, 5U);
  EXPECT_DOUBLE_EQ(baseline_of(std::vector<double>{7, 7, 7}).log_spread, DriftSettings{}.min_spread);
  EXPECT_THROW(baseline_of(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(baseline_of(std::vector<double>{1, 0}), std::invalid_argument);
}

TEST(Drift, AStableSeriesHasNoChange) { EXPECT_TRUE(detect_drift(stable(500)).empty()); }

TEST(Drift, ATooShortSeriesIsNotJudged) {
  const std::vector<double> values = stable(DriftSettings{}.baseline_runs);
  EXPECT_TRUE(detect_drift(values).empty());
}

TEST(Drift, AStepOfTenPercentIsFlaggedAtItsThirdRunAndNamesTheRunItBegan) {
  std::vector<double> values = stable(60);
  for (std::size_t i = 31; i < values.size(); ++i) values[i] *= 0.9;
  const std::vector<DriftChange> changes = detect_drift(values);
  ASSERT_EQ(changes.size(), 1U);
  EXPECT_TRUE(changes[0].lower);
  EXPECT_EQ(changes[0].began, 31U);
  // Each run adds h / (min_change_runs - 1) = 2.5 to the sum: 5 at the second run (not over h), 7.5 at the third.
  EXPECT_EQ(changes[0].flagged, 33U);
  EXPECT_FALSE(changes[0].cleared);
  EXPECT_NEAR(changes[0].ratio(), 0.9, 0.006);
  EXPECT_NEAR(changes[0].baseline.median, 100, 0.01);
  // Qn of two alternating values is 0 (a quarter of the pairs are equal): the floor, 0.5%.
  EXPECT_DOUBLE_EQ(changes[0].baseline.log_spread, DriftSettings{}.min_spread);
}

TEST(Drift, OneOrTwoWildRunsAreNotAChange) {
  std::vector<double> values = stable(80);
  values[30] = 20;  // a neighbour's job: a fifth of the bandwidth, once
  values[45] = 500;
  values[60] = values[61] = 50;  // and twice in a row: 2.5 + 2.5 reaches h = 5 and does not pass it
  EXPECT_TRUE(detect_drift(values).empty());
}

TEST(Drift, ARampOfOnePercentPerRunIsFlaggedWithinTenRunsOfItsStartAndDatedToIt) {
  std::vector<double> values = stable(80);
  for (std::size_t i = 30; i < values.size(); ++i) values[i] *= 1 - 0.01 * static_cast<double>(i - 29);
  const std::vector<DriftChange> changes = detect_drift(values);
  ASSERT_FALSE(changes.empty());
  EXPECT_TRUE(changes[0].lower);
  EXPECT_GE(changes[0].began, 29U);
  EXPECT_LE(changes[0].began, 31U);
  EXPECT_LE(changes[0].flagged, 40U);
}

TEST(Drift, ADeclineThatStartsWithTheHistoryIsDatedToItsFirstRun) {
  // 1% less every run from the first: the baseline's own runs are part of the decline.
  std::vector<double> values;
  for (std::size_t i = 0; i < 60; ++i) values.push_back(100 * std::pow(0.99, static_cast<double>(i)));
  const std::vector<DriftChange> changes = detect_drift(values);
  ASSERT_FALSE(changes.empty());
  EXPECT_TRUE(changes[0].lower);
  EXPECT_EQ(changes[0].began, 0U);
}

TEST(Drift, ARepairedHostIsClearedAfterThreeRunsBackInItsBand) {
  std::vector<double> values = stable(80);
  for (std::size_t i = 31; i < 34; ++i) values[i] *= 0.85;  // repaired the run after it was flagged
  const std::vector<DriftChange> changes = detect_drift(values);
  ASSERT_EQ(changes.size(), 1U);
  EXPECT_EQ(changes[0].began, 31U);
  EXPECT_EQ(changes[0].flagged, 33U);
  ASSERT_TRUE(changes[0].cleared);
  EXPECT_EQ(*changes[0].cleared, 36U);  // runs 34, 35, 36 back within 1.5 spreads of the baseline
  RunSeries series{.subject = "host node3: pairwise 4M", .host = "node3", .value_name = "busbw", .unit = "GB/s"};
  series.values = values;
  for (std::size_t i = 0; i < values.size(); ++i) {
    series.run_ids.push_back("run" + std::to_string(i));
    series.start_times.push_back("t" + std::to_string(i));
  }
  const SeriesDrift judged = judge_series(series);
  EXPECT_FALSE(judged.open_change);  // history, not a finding: no drain
  EXPECT_TRUE(judged.evidence.empty());
  EXPECT_NEAR(judged.baseline_median, 100, 0.01);
  EXPECT_EQ(drift_marks(judged, 36), "cleared: 3 runs in a row within 1.5 spreads of the baseline");
  EXPECT_EQ(drift_marks(judged, 31), "change began (lower 0.846 x baseline)");  // 0.995 x 0.85
}

TEST(Drift, AChangeThatStaysIsTheNewLevelAndItsRecoveryClearsIt) {
  std::vector<double> values = stable(100);
  for (std::size_t i = 31; i < 71; ++i) values[i] *= 0.8;
  const std::vector<DriftChange> changes = detect_drift(values);
  ASSERT_EQ(changes.size(), 2U);
  EXPECT_TRUE(changes[0].lower);
  EXPECT_EQ(changes[0].began, 31U);
  EXPECT_EQ(changes[0].flagged, 33U);
  // Not back within 20 runs: runs 34-53 at 80 are the new baseline, and the recovery at run 71 is
  // a change upward against it; the first change is cleared by the same runs.
  EXPECT_EQ(changes[0].cleared, std::optional<std::size_t>(73U));
  EXPECT_FALSE(changes[1].lower);
  EXPECT_EQ(changes[1].began, 71U);
  EXPECT_NEAR(changes[1].baseline.median, 80, 0.01);
}

TEST(Drift, AJudgedSeriesIsDegradedWhileItsLastChangeIsWorse) {
  RunSeries series{.subject = "host node3: pairwise 4M", .host = "node3", .value_name = "busbw", .unit = "GB/s"};
  series.values = stable(60);
  for (std::size_t i = 0; i < series.values.size(); ++i) {
    series.run_ids.push_back("run" + std::to_string(i));
    series.start_times.push_back("2026-11-" + std::to_string(10 + i / 10) + "T00:00:00Z");
  }
  for (std::size_t i = 31; i < series.values.size(); ++i) series.values[i] *= 0.9;
  const SeriesDrift bandwidth = judge_series(series);
  ASSERT_TRUE(bandwidth.open_change);
  EXPECT_EQ(bandwidth.open_change->began, 31U);
  EXPECT_NE(bandwidth.evidence.find("since run run31 (2026-11-13T00:00:00Z), flagged at run run33 (2 runs later)"),
            std::string::npos)
      << bandwidth.evidence;
  // The same values as a time: lower is faster, not a fault.
  series.higher_is_better = false;
  const SeriesDrift time = judge_series(series);
  EXPECT_EQ(time.changes.size(), 1U);
  EXPECT_FALSE(time.open_change);
  EXPECT_TRUE(time.evidence.empty());
}

}  // namespace
}  // namespace fb::diagnosis
