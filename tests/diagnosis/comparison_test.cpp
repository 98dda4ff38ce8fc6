#include "diagnosis/comparison.hpp"
#include "diagnosis/comparison.hpp"
#include "support/result_rows.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace fb {

using diagnosis::Comparison;
using diagnosis::OpComparison;
using diagnosis::Significance;
using diagnosis::compare_results;
using diagnosis::default_noise_bound_fraction;
using diagnosis::count_too_noisy;
using diagnosis::run_to_run_spread;
using diagnosis::too_noisy_to_compare;
namespace {

using testing::collective_row;
using testing::noisy;

TEST(Comparison, RatioAndGeometricMeanPerOp) {
  const std::vector<ResultRow> a{noisy(collective_row("all_reduce", 1024, 10), 0.01, 0.02),
                                 noisy(collective_row("all_reduce", 4096, 20), 0.01, 0.02)};
  const std::vector<ResultRow> b{noisy(collective_row("all_reduce", 1024, 20), 0.01, 0.02),
                                 noisy(collective_row("all_reduce", 4096, 10), 0.01, 0.02)};
  const Comparison comparison = compare_results(a, b);
  ASSERT_EQ(comparison.ops.size(), 1u);
  const OpComparison& op = comparison.ops[0];
  ASSERT_EQ(op.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(op.rows[0].time_ratio_b_over_a, 2.0);
  EXPECT_DOUBLE_EQ(op.rows[1].time_ratio_b_over_a, 0.5);
  EXPECT_NEAR(op.geomean_time_ratio_b_over_a, 1.0, 1e-12);  // sqrt(2 x 0.5)
}

TEST(Comparison, DifferencesAreJudgedAgainstBothSidesSpread) {
  // Spread per side: max(CV, p99/median - 1) = 0.05 (the tail), so the bound is 1 + 0.10.
  const auto row = [](std::uint64_t bytes, double time) {
    return noisy(collective_row("all_gather", bytes, time), 0.02, 0.05);
  };
  const std::vector<ResultRow> a{row(1024, 100), row(2048, 100), row(4096, 100)};
  const std::vector<ResultRow> b{row(1024, 108), row(2048, 112), row(4096, 90)};
  const Comparison comparison = compare_results(a, b);
  const auto& rows = comparison.ops.at(0).rows;
  EXPECT_NEAR(rows[0].spread_fraction, 0.10, 1e-12);
  EXPECT_EQ(rows[0].significance, Significance::within_spread);  // 1.08 < 1.10
  EXPECT_EQ(rows[1].significance, Significance::beyond_spread);  // 1.12 > 1.10
  EXPECT_EQ(rows[2].significance, Significance::beyond_spread);  // 0.90 < 1 / 1.10
}

// Two runs on one busy machine: a p99 five times the median on each side. The ratio 1.8 is inside
// the window, but so would a 2x regression be: the comparison says the runs cannot be compared at
// that size instead of "0 beyond the spread".
TEST(Comparison, RunsSpreadingOver100PercentAreTooNoisyToCompare) {
  const std::vector<ResultRow> a{noisy(collective_row("all_reduce", 1024, 10), 0.9, 4.0),
                                 noisy(collective_row("all_reduce", 2048, 10), 0.01, 0.02)};
  const std::vector<ResultRow> b{noisy(collective_row("all_reduce", 1024, 18), 0.9, 4.0),
                                 noisy(collective_row("all_reduce", 2048, 10.1), 0.01, 0.02)};
  const Comparison comparison = compare_results(a, b);
  const auto& rows = comparison.ops.at(0).rows;
  EXPECT_NEAR(rows.at(0).spread_fraction, 8.0, 1e-12);
  EXPECT_TRUE(too_noisy_to_compare(rows.at(0)));
  EXPECT_FALSE(too_noisy_to_compare(rows.at(1)));  // 4% spread
  EXPECT_EQ(count_too_noisy(comparison), 1u);
  // The judged value carries what the renderers print: the flag per row and the counts.
  EXPECT_TRUE(rows.at(0).too_noisy);
  EXPECT_EQ(comparison.ops.at(0).too_noisy, 1u);
  EXPECT_EQ(comparison.too_noisy, 1u);
}

TEST(Comparison, RowsWithoutRecordedSpreadAreJudgedAgainstTheDefaultBound) {
  // collective_row has min == max and CV 0, like a time imported from an nccl-tests log.
  const std::vector<ResultRow> a{collective_row("all_reduce", 1024, 10), collective_row("all_reduce", 2048, 10)};
  const std::vector<ResultRow> b{collective_row("all_reduce", 1024, 76), collective_row("all_reduce", 2048, 10.5)};
  const Comparison comparison = compare_results(a, b);
  const auto& rows = comparison.ops.at(0).rows;
  EXPECT_EQ(rows.at(0).significance, Significance::beyond_default_bound);  // 7.6x slower
  EXPECT_EQ(rows.at(1).significance, Significance::within_default_bound);  // 5% < 10%
  EXPECT_DOUBLE_EQ(rows.at(0).spread_fraction, default_noise_bound_fraction);
  EXPECT_FALSE(run_to_run_spread(a[0]).has_value());
}

TEST(Comparison, AStatisticTheSourceDidNotReportIsNoSpread) {
  // A p99 and CV marked unreported say nothing about the spread, whatever the fields hold.
  ResultRow imported = noisy(collective_row("all_reduce", 1024, 10), 0.2, 0.5);
  imported.unreported_statistics = "time_p99_us time_cv";
  EXPECT_FALSE(run_to_run_spread(imported).has_value());
  imported.unreported_statistics = "time_p99_us";
  EXPECT_DOUBLE_EQ(*run_to_run_spread(imported), 0.2);  // the CV alone
}

TEST(Comparison, MatchesOnPlacementAndRanksAndCountsTheRest) {
  ResultRow in_place = collective_row("all_reduce", 1024, 10);
  in_place.in_place = true;
  const std::vector<ResultRow> a{collective_row("all_reduce", 1024, 10), in_place,
                                 collective_row("all_reduce", 1024, 10, 16)};
  const std::vector<ResultRow> b{collective_row("all_reduce", 1024, 12), collective_row("broadcast", 1024, 10)};
  const Comparison comparison = compare_results(a, b);
  ASSERT_EQ(comparison.ops.size(), 1u);
  EXPECT_EQ(comparison.ops[0].rows.size(), 1u);
  EXPECT_FALSE(comparison.ops[0].rows[0].a.in_place);
  EXPECT_EQ(comparison.only_in_a, 2u);
  EXPECT_EQ(comparison.only_in_b, 1u);
}

TEST(Comparison, PairsMatchOnRanksAcrossClustersWithDifferentHostNames) {
  const std::vector<ResultRow> a{testing::pair_row(0, 1, "old-1", "old-2", 40)};
  const std::vector<ResultRow> b{testing::pair_row(0, 1, "new-1", "new-2", 50)};
  const Comparison comparison = compare_results(a, b);
  ASSERT_EQ(comparison.ops.size(), 1u);
  EXPECT_NEAR(comparison.ops[0].rows[0].time_ratio_b_over_a, 0.8, 1e-12);
}

TEST(Comparison, SeveralRunsOnOneSideKeepTheFastest) {
  const std::vector<ResultRow> a{collective_row("all_reduce", 1024, 12), collective_row("all_reduce", 1024, 10)};
  const std::vector<ResultRow> b{collective_row("all_reduce", 1024, 5)};
  const Comparison comparison = compare_results(a, b);
  EXPECT_EQ(comparison.duplicates_merged, 1u);
  EXPECT_DOUBLE_EQ(comparison.ops.at(0).rows.at(0).time_ratio_b_over_a, 0.5);
}

// Two quiet runs of a CPU box, ten repetitions each: every repetition's median within 1% of
// 10 us, but the iterations inside one repetition have a tail (p99 twice the median, CV 40%), as a
// shared machine's do. Judged from one row's CV and tail they spread over 100% and were "too noisy
// to compare"; judged from each run's own repetitions they spread about 1% and are comparable.
TEST(Comparison, TwoQuietRunsJudgedFromTheirRepetitionsAreComparable) {
  const auto run = [](double scale) {
    std::vector<ResultRow> rows;
    for (int rep = 0; rep < 10; ++rep) {
      ResultRow row = noisy(collective_row("all_reduce", 1024, scale * (10 + 0.02 * (rep % 5))), 0.4, 1.0);
      row.repetition = rep;
      rows.push_back(row);
    }
    return rows;
  };
  const std::vector<ResultRow> a = run(1.0);
  const std::vector<ResultRow> b = run(1.005);
  ASSERT_GE(*run_to_run_spread(a[0]), 1.0);  // one row alone: over 100%
  const Comparison comparison = compare_results(a, b);
  EXPECT_EQ(comparison.duplicates_merged, 0u);
  ASSERT_EQ(comparison.ops.size(), 1u);
  ASSERT_EQ(comparison.ops[0].rows.size(), 1u);
  const diagnosis::ComparedRow& row = comparison.ops[0].rows[0];
  EXPECT_EQ(row.repetitions_a, 10u);
  EXPECT_EQ(row.repetitions_b, 10u);
  // Medians over the repetitions: 10.04 and 10.04 x 1.005.
  EXPECT_NEAR(row.a.time_median_us, 10.04, 1e-9);
  EXPECT_NEAR(row.time_ratio_b_over_a, 1.005, 1e-9);
  // Each side's quartiles 10.02 and 10.06 over 10.04: 0.4%, twice over.
  EXPECT_NEAR(row.spread_fraction, 2 * 0.04 / 10.04, 1e-6);
  EXPECT_EQ(row.significance, Significance::within_spread);
  EXPECT_FALSE(row.too_noisy);
  EXPECT_EQ(count_too_noisy(comparison), 0u);
}

// A campaign's folder holds every repetition: like is compared with like (their median), not the
// fastest repetition against the other side's.
TEST(Comparison, RepetitionsAreComparedByTheirMedianNotTheFastest) {
  std::vector<ResultRow> a;
  for (const double t : {10.0, 11.0, 12.0, 13.0, 30.0}) {
    a.push_back(collective_row("all_reduce", 1024, t));
    a.back().repetition = static_cast<int>(a.size());
  }
  const std::vector<ResultRow> b{collective_row("all_reduce", 1024, 12)};
  const Comparison comparison = compare_results(a, b);
  EXPECT_DOUBLE_EQ(comparison.ops.at(0).rows.at(0).a.time_median_us, 12.0);
  EXPECT_DOUBLE_EQ(comparison.ops.at(0).rows.at(0).time_ratio_b_over_a, 1.0);
  EXPECT_EQ(comparison.ops.at(0).rows.at(0).repetitions_a, 5u);
}

}  // namespace
}  // namespace fb
