// The report's judgement: what was judged, PASS only when thresholds were given and all passed
// (over repetitions, as `accept` and `campaign` judge them), INCONCLUSIVE when the repetitions
// cannot decide, and slow hosts named by the median absolute deviation when no topology is given.

#include "diagnosis/host_outliers.hpp"
#include "diagnosis/verdict.hpp"
#include "diagnosis/thresholds.hpp"
#include "support/result_rows.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fb {

using diagnosis::HostOutliers;
using diagnosis::ReportVerdict;
using diagnosis::VerdictStatus;
using diagnosis::find_slow_hosts;
using diagnosis::judge_report;
using diagnosis::parse_thresholds;
namespace {

using ::testing::HasSubstr;
using testing::collective_row;
using testing::pair_row;

// What a report holds against its results, without a topology.
struct Judged {
  std::vector<LoadedResults> sets;
  std::optional<diagnosis::Thresholds> thresholds;
};

ReportVerdict judge(Judged& input) {
  return judge_report({.fabric = {.sets = input.sets}, .thresholds = input.thresholds ? &*input.thresholds : nullptr})
      .verdict;
}

// `rows` repeated `repetitions` times, each copy carrying its repetition.
std::vector<ResultRow> repeated(const std::vector<ResultRow>& rows, int repetitions) {
  std::vector<ResultRow> all;
  for (int repetition = 0; repetition < repetitions; ++repetition)
    for (ResultRow row : rows) {
      row.repetition = repetition;
      all.push_back(std::move(row));
    }
  return all;
}

Judged input_of(std::vector<ResultRow> rows) {
  Judged input;
  LoadedResults set;
  set.label = "run-a";
  set.results.rows = std::move(rows);
  input.sets.push_back(std::move(set));
  return input;
}

// Every ordered pair of `hosts` hosts at 10 GB/s, except the pairs with host `slow`, at `slow_gbps`.
std::vector<ResultRow> all_pairs(int hosts, int slow, double slow_gbps) {
  std::vector<ResultRow> rows;
  for (int s = 0; s < hosts; ++s)
    for (int d = 0; d < hosts; ++d) {
      if (s == d) continue;
      ResultRow row = pair_row(s, d, fmt::format("h{:05}", s), fmt::format("h{:05}", d),
                               s == slow || d == slow ? slow_gbps : 10.0 + 0.01 * ((s + d) % 7));
      row.op = "pairwise";
      rows.push_back(std::move(row));
    }
  return rows;
}

TEST(ReportVerdict, WithoutThresholdsNothingPassesItIsNotJudged) {
  Judged input = input_of({collective_row("all_reduce", 1 << 20, 100)});
  const ReportVerdict verdict = judge(input);
  EXPECT_EQ(verdict.status, VerdictStatus::not_judged);
  EXPECT_EQ(verdict.checks, 0u);
  ASSERT_EQ(verdict.judged.size(), 1u);
  EXPECT_EQ(verdict.judged[0], "element validation of 1 rows (0 with wrong elements)");
}

constexpr std::string_view three_checks = "checks:\n"
                                          "  - {kind: max_latency, op: all_reduce, at_most_us: 200}\n"
                                          "  - {kind: max_latency, op: all_reduce, statistic: p99, at_most_us: 200}\n"
                                          "  - {kind: min_bandwidth, op: all_reduce, at_least_gbps: 50}\n";

TEST(ReportVerdict, OneRepetitionDecidesNothingItIsInconclusive) {
  ResultRow imported = collective_row("all_reduce", 1 << 20, 100);
  imported.unreported_statistics = "time_p99_us";
  Judged input = input_of({imported});
  input.thresholds = parse_thresholds(three_checks, "t.yaml");
  const ReportVerdict verdict = judge(input);
  // One sample bounds no median: neither the latency that looks fine nor the busbw of 18.35 GB/s
  // under 50 is decided, and the p99 the log never had is not available.
  EXPECT_EQ(verdict.status, VerdictStatus::inconclusive);
  EXPECT_EQ(verdict.checks, 3u);
  EXPECT_EQ(verdict.failed_checks, 0u);
  EXPECT_EQ(verdict.inconclusive_checks, 3u);
}

TEST(ReportVerdict, CountsFailedChecksOverRepetitions) {
  ResultRow imported = collective_row("all_reduce", 1 << 20, 100);
  imported.unreported_statistics = "time_p99_us";
  Judged input = input_of(repeated({imported}, 10));
  input.thresholds = parse_thresholds(three_checks, "t.yaml");
  const ReportVerdict verdict = judge(input);
  EXPECT_EQ(verdict.status, VerdictStatus::fail);
  EXPECT_EQ(verdict.failed_checks, 1u);        // busbw 18.35 GB/s < 50 in all 10 repetitions
  EXPECT_EQ(verdict.inconclusive_checks, 1u);  // the p99 the log never had
  ASSERT_EQ(verdict.findings.size(), 1u);
  EXPECT_EQ(verdict.findings[0].kind, "acceptance");
}

TEST(ReportVerdict, PassesWhenEveryCheckPasses) {
  Judged input = input_of(repeated({collective_row("all_reduce", 1 << 20, 100)}, 10));
  input.thresholds = parse_thresholds("checks:\n  - {kind: max_latency, op: all_reduce, at_most_us: 200}\n", "t.yaml");
  const ReportVerdict verdict = judge(input);
  EXPECT_EQ(verdict.status, VerdictStatus::pass);
  EXPECT_EQ(verdict.checks, 1u);
}

TEST(HostOutliers, TheSlowHostAmong1024IsNamedWithoutATopology) {
  // 1,024 hosts would be a million pairs; 64 hosts of every ordered pair show the rule, and a
  // 1,024-host ring of pairs below shows the scale.
  Judged input = input_of(all_pairs(64, 17, 2.5));
  const ReportVerdict verdict = judge(input);
  EXPECT_EQ(verdict.status, VerdictStatus::fail);
  ASSERT_EQ(verdict.findings.size(), 1u);
  EXPECT_EQ(verdict.findings[0].kind, "slow_host");
  EXPECT_EQ(verdict.findings[0].subject, "h00017 (pairwise)");
  EXPECT_DOUBLE_EQ(*verdict.findings[0].measured, 2.5);
  EXPECT_THAT(verdict.judged.back(), HasSubstr("host outliers among 64 hosts at 64M"));

  std::vector<ResultRow> ring;
  for (int s = 0; s < 1024; ++s)
    for (int step : {1, 2, 3}) {
      const int d = (s + step) % 1024;
      ring.push_back(pair_row(s, d, fmt::format("h{:05}", s), fmt::format("h{:05}", d),
                              s == 700 || d == 700 ? 4.0 : 10.0 + 0.01 * (s % 5)));
    }
  const std::vector<HostOutliers> found = find_slow_hosts(ring);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].hosts, 1024u);
  ASSERT_EQ(found[0].findings.size(), 1u);
  EXPECT_EQ(found[0].findings[0].subject, "h00700 (bw)");
}

TEST(HostOutliers, ConcurrentPairsAreNotComparedTheyShareLinksOnPurpose) {
  std::vector<ResultRow> rows = all_pairs(8, 3, 2.5);
  for (ResultRow& row : rows) row.op = "concurrent";
  EXPECT_TRUE(find_slow_hosts(rows).empty());
}

// A ticket's cost line says why the model cannot price a finding: an intermittent link runs at
// its healthy rate between drops, so there is no steady rate to degrade. The judgement keeps the
// line with the ticket (FindingTicket::no_cost); the report and the console print it as it is.
TEST(NoCostText, EachKindTheModelCannotPriceSaysWhy) {
  diagnosis::Finding intermittent{.kind = "intermittent_link",
                                  .subject =
                                      "leaf0001 <-> spine0001 (both directions): 160 pairs slow in repetition 2 only"};
  EXPECT_EQ(diagnosis::no_cost_text(intermittent),
            "no predicted cost (an intermittent fault has no steady degraded rate for the model to price: what it "
            "costs a job depends on when and for how long it drops)");
  diagnosis::Finding host = intermittent;
  host.kind = "intermittent_host";
  EXPECT_EQ(diagnosis::no_cost_text(host), diagnosis::no_cost_text(intermittent));
  // A blocking link is the design itself, a link that is down has no rate at all, and a lossy one
  // keeps its bandwidth: each says why, none the generic line.
  const std::string generic = "no predicted cost (the model has no rate to degrade for it)";
  EXPECT_THAT(diagnosis::no_cost_text({.kind = "blocking_link", .subject = "leaf0001 <-> spine0001"}),
              ::testing::StartsWith("no predicted cost of a repair (a blocking link is the fabric as built"));
  EXPECT_THAT(diagnosis::no_cost_text({.kind = "failed_link", .subject = "h00003/eth0 <-> leaf0001"}),
              ::testing::HasSubstr("a link that is down has no rate"));
  EXPECT_THAT(diagnosis::no_cost_text({.kind = "lossy_link", .subject = "h00003/eth0 <-> leaf0001"}),
              ::testing::HasSubstr("latency tails"));
  EXPECT_EQ(diagnosis::no_cost_text({.kind = "wrong_result", .subject = "all_reduce 1K"}), generic);
}

}  // namespace
}  // namespace fb
