// A check over many measurements (sizes, pairs), each repeated: rows join by what was measured,
// the check is the worst of its measurements, and its error rates stay those of one measurement
// (false rejects split over the measurements, Bonferroni).

#include "diagnosis/repeated_limit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace fb::diagnosis {
namespace {

ResultRow row_of(std::uint64_t bytes, int repetition, double busbw) {
  ResultRow row;
  row.run_id = "run" + std::to_string(repetition);
  row.backend = "mpi";
  row.op = "all_reduce";
  row.dtype = "float";
  row.redop = "sum";
  row.nranks = 4;
  row.nodes = 1;
  row.bytes = bytes;
  row.repetition = repetition;
  row.busbw_gbps = busbw;
  row.algbw_gbps = busbw / 1.5;
  row.timestamp = "2026-11-26T19:00:0" + std::to_string(repetition % 10) + "Z";
  return row;
}

RepeatedLimit busbw_at_least(double limit) {
  return {.selects = [](const ResultRow& row) { return row.op == "all_reduce"; },
          .value = [](const ResultRow& row) { return row.busbw_gbps; },
          .limit = limit,
          .higher_is_better = true,
          .unit = "GB/s"};
}

TEST(RepeatedLimit, RepetitionsOfOneSizeJoinAcrossRunsAndTimestamps) {
  std::vector<ResultRow> rows;
  for (int rep = 0; rep < 10; ++rep) {
    rows.push_back(row_of(1 << 20, rep, 10 + rep * 0.1));
    rows.push_back(row_of(1 << 10, rep, 2 + rep * 0.01));
  }
  const RepeatedLimitVerdict verdict = judge_over_repetitions(rows, busbw_at_least(5));
  ASSERT_EQ(verdict.measurements.size(), 2u);
  EXPECT_EQ(verdict.rows, 20u);
  EXPECT_EQ(verdict.measurements[0].verdict.samples, 10u);
  EXPECT_EQ(verdict.measurements[0].verdict.decision, Decision::pass);
  EXPECT_EQ(verdict.measurements[1].verdict.decision, Decision::fail);
  EXPECT_EQ(verdict.decision, Decision::fail);
  EXPECT_EQ(verdict.measurements[1].subject, "all_reduce 1K out-of-place, 4 ranks");
}

TEST(RepeatedLimit, OneRunWithoutRepetitionsIsInconclusiveNotAPass) {
  // A single sweep far above the limit: a fixed margin on the median would pass it, but one
  // value bounds nothing.
  const std::vector<ResultRow> rows{row_of(1 << 20, 0, 50)};
  const RepeatedLimitVerdict verdict = judge_over_repetitions(rows, busbw_at_least(5));
  EXPECT_EQ(verdict.decision, Decision::inconclusive);
  // One value says nothing of the noise: by the estimate a run of 169 decides 90% of the time.
  EXPECT_EQ(verdict.repetitions_needed, 169u);
  EXPECT_NE(verdict.statement.find("about 169 repetitions would decide (estimated"), std::string::npos)
      << verdict.statement;
}

TEST(RepeatedLimit, NothingSelectedFails) {
  const RepeatedLimitVerdict verdict = judge_over_repetitions({}, busbw_at_least(5));
  EXPECT_EQ(verdict.decision, Decision::fail);
  EXPECT_NE(verdict.statement.find("nothing was measured"), std::string::npos);
}

// Eight sizes all exactly on the limit (each keeps it): the check fails falsely at most 2.5% of
// the time, not 8 x 2.5%. And one size just under the limit among seven clear ones passes falsely
// at most 2.5% of the time.
TEST(RepeatedLimit, CheckLevelErrorRatesStayAtAlpha) {
  constexpr int trials = 2000;
  const double tolerance = 0.025 + 3 * std::sqrt(0.025 * 0.975 / trials);
  std::mt19937_64 rng(21);
  std::lognormal_distribution<double> noise(0, 0.2);
  int false_rejects = 0;
  int false_accepts = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<ResultRow> on_limit;
    std::vector<ResultRow> one_bad;
    for (int rep = 0; rep < 12; ++rep)
      for (int size = 0; size < 8; ++size) {
        on_limit.push_back(row_of(1ULL << (10 + size), rep, 100 * noise(rng)));
        one_bad.push_back(row_of(1ULL << (10 + size), rep, (size == 3 ? 100 * (1 - 1e-9) : 200) * noise(rng)));
      }
    false_rejects += judge_over_repetitions(on_limit, busbw_at_least(100)).decision == Decision::fail;
    false_accepts += judge_over_repetitions(one_bad, busbw_at_least(100)).decision == Decision::pass;
  }
  EXPECT_LE(false_rejects / static_cast<double>(trials), tolerance);
  EXPECT_LE(false_accepts / static_cast<double>(trials), tolerance);
}

}  // namespace
}  // namespace fb::diagnosis
