#include "diagnosis/efficiency.hpp"

#include "support/result_rows.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fb {

using diagnosis::EfficiencySummary;
using diagnosis::summarize_efficiency;
namespace {

using ::testing::HasSubstr;

ResultRow judged(ResultRow row, double expected_gbps) {
  row.expected_busbw_gbps = expected_gbps;
  row.efficiency_pct = 100 * row.busbw_gbps.value_or(row.algbw_gbps) / expected_gbps;
  return row;
}

TEST(EfficiencySummary, PairRowsFoldIntoMedianAndLowestPerSize) {
  std::vector<ResultRow> rows;
  for (const double gbps : {40.0, 45.0, 10.0}) rows.push_back(judged(testing::pair_row(0, 1, "a", "b", gbps), 50.0));
  rows[2].src_host = "slow-host";
  rows.push_back(testing::pair_row(1, 0, "b", "a", 1.0));  // no expectation: left out
  ResultRow latency = testing::pair_row(0, 1, "a", "b", 1.0, 8);
  latency.op = "latency";
  latency.time_median_us = 4.0;
  latency.expected_time_us = 2.0;
  latency.efficiency_pct = 50.0;
  rows.push_back(latency);

  const std::vector<EfficiencySummary> summaries = summarize_efficiency(rows);
  ASSERT_EQ(summaries.size(), 2u);
  const EfficiencySummary& bw = summaries[0];
  EXPECT_EQ(bw.op, "bw");
  EXPECT_EQ(bw.rows, 3u);
  EXPECT_EQ(bw.unit, "GB/s");
  EXPECT_DOUBLE_EQ(bw.median_expected, 50.0);
  EXPECT_NEAR(bw.median_measured, 40.0, 1e-9);
  EXPECT_NEAR(bw.median_efficiency_pct, 80.0, 1e-9);
  EXPECT_NEAR(bw.lowest_efficiency_pct, 20.0, 1e-9);
  EXPECT_THAT(bw.lowest_row, HasSubstr("slow-host"));
  const EfficiencySummary& lat = summaries[1];
  EXPECT_EQ(lat.op, "latency");
  EXPECT_EQ(lat.unit, "us");
  EXPECT_DOUBLE_EQ(lat.median_expected, 2.0);
  EXPECT_DOUBLE_EQ(lat.median_measured, 4.0);
}

}  // namespace
}  // namespace fb
