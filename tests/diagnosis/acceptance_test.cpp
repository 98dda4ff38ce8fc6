#include "diagnosis/acceptance.hpp"
#include "common/errors.hpp"
#include "support/result_rows.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fb {

using diagnosis::AcceptanceVerdict;
using diagnosis::CheckResult;
using diagnosis::CheckStatus;
using diagnosis::Thresholds;
using diagnosis::evaluate_acceptance;
using diagnosis::parse_thresholds;
using diagnosis::read_thresholds;
namespace {

using ::testing::HasSubstr;
using testing::collective_row;
using testing::pair_row;

AcceptanceVerdict evaluate(std::string_view yaml, const std::vector<ResultRow>& rows) {
  return evaluate_acceptance(parse_thresholds(yaml, "test.yaml"), rows);
}

TEST(Acceptance, MinBandwidthLooksOnlyAtSelectedSizesAndNamesTheSlowRow) {
  const std::vector<ResultRow> rows{collective_row("all_reduce", 1 << 20, 100),        // 18.35 GB/s busbw, too small
                                    collective_row("all_reduce", 1ull << 30, 5000),    // 375.8 GB/s busbw
                                    collective_row("all_reduce", 2ull << 30, 12000)};  // 313.2 GB/s busbw
  const AcceptanceVerdict verdict = evaluate(R"(
checks:
  - kind: min_bandwidth
    op: all_reduce
    min_bytes: 1G
    at_least_gbps: 360
)",
                                             rows);
  ASSERT_EQ(verdict.results.size(), 1u);
  const CheckResult& result = verdict.results[0];
  EXPECT_EQ(result.status, CheckStatus::fail);
  EXPECT_EQ(result.rows_checked, 2u);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_THAT(result.findings[0].subject, HasSubstr("2G"));
  EXPECT_NEAR(*result.findings[0].measured, 313.2, 0.1);
  EXPECT_NEAR(*result.findings[0].ratio(), 313.2 / 360, 1e-3);
  EXPECT_FALSE(verdict.passed());
}

TEST(Acceptance, MaxLatencyUsesTheChosenStatistic) {
  ResultRow latency = collective_row("latency", 8, 2.0, 2);
  latency.time_p99_us = 9.0;
  const std::vector<ResultRow> rows{latency};
  EXPECT_EQ(
      evaluate("checks:\n  - {kind: max_latency, op: latency, bytes: 8, at_most_us: 5}\n", rows).results[0].status,
      CheckStatus::pass);
  EXPECT_EQ(evaluate("checks:\n  - {kind: max_latency, op: latency, bytes: 8, statistic: p99, at_most_us: 5}\n", rows)
                .results[0]
                .status,
            CheckStatus::fail);
}

TEST(Acceptance, AStatisticTheSourceNeverReportedIsNotAvailableAndNotAPass) {
  // As imported from OSU or nccl-tests: one time per size, the p99 not reported.
  ResultRow imported = collective_row("latency", 8, 2.0, 2);
  imported.unreported_statistics = "time_min_us time_p99_us time_max_us time_cv";
  const std::vector<ResultRow> rows{imported};
  const AcceptanceVerdict p99 =
      evaluate("checks:\n  - {kind: max_latency, op: latency, statistic: p99, at_most_us: 5}\n", rows);
  EXPECT_EQ(p99.results[0].status, CheckStatus::not_available);
  EXPECT_THAT(p99.results[0].summary, HasSubstr("not available: 1 selected rows do not report time_p99_us"));
  EXPECT_FALSE(p99.passed());
  // The median the log did print is judged as usual.
  EXPECT_TRUE(evaluate("checks:\n  - {kind: max_latency, op: latency, at_most_us: 5}\n", rows).passed());
  // A row that does report the p99 and fails it decides: a failure is a failure.
  ResultRow measured = collective_row("latency", 8, 2.0, 2);
  measured.time_p99_us = 9.0;
  EXPECT_EQ(evaluate("checks:\n  - {kind: max_latency, op: latency, statistic: p99, at_most_us: 5}\n",
                     {imported, measured})
                .results[0]
                .status,
            CheckStatus::fail);
}

TEST(Acceptance, ACheckWithoutMatchingRowsFails) {
  const std::vector<ResultRow> rows{collective_row("all_gather", 1ull << 30, 5000)};
  const AcceptanceVerdict verdict =
      evaluate("checks:\n  - {kind: min_bandwidth, op: all_reduce, at_least_gbps: 1}\n", rows);
  EXPECT_EQ(verdict.results[0].status, CheckStatus::fail);
  EXPECT_THAT(verdict.results[0].summary, HasSubstr("no rows match"));
}

TEST(Acceptance, ZeroWrongFailsOnWrongElementsAndOnUnvalidatedRows) {
  std::vector<ResultRow> rows{collective_row("all_reduce", 1024, 10), collective_row("all_reduce", 2048, 10)};
  const std::string yaml = "checks:\n  - kind: zero_wrong\n";
  EXPECT_EQ(evaluate(yaml, rows).results[0].status, CheckStatus::pass);
  rows[1].wrong = 3;
  const AcceptanceVerdict wrong = evaluate(yaml, rows);
  EXPECT_EQ(wrong.results[0].status, CheckStatus::fail);
  ASSERT_EQ(wrong.results[0].findings.size(), 1u);
  EXPECT_EQ(wrong.results[0].findings[0].kind, "wrong_result");
  rows[1].wrong.reset();
  const AcceptanceVerdict unvalidated = evaluate(yaml, rows);
  EXPECT_EQ(unvalidated.results[0].status, CheckStatus::fail);
  EXPECT_THAT(unvalidated.results[0].summary, HasSubstr("1 rows were not validated"));
}

TEST(Acceptance, HostOutlierFindsTheSlowHostByMedianAbsoluteDeviation) {
  // All pairs of six hosts; n3's link is slow, so every row through n3 runs at 20 GB/s while the
  // others run at 47-49 GB/s. Each healthy host meets n3 in one row of five: its median stays high.
  std::vector<ResultRow> rows;
  for (int src = 0; src < 6; ++src)
    for (int dst = src + 1; dst < 6; ++dst)
      rows.push_back(pair_row(src, dst, "n" + std::to_string(src), "n" + std::to_string(dst),
                              src == 3 || dst == 3 ? 20.0 : 47.0 + (src + dst) % 3));
  const AcceptanceVerdict verdict = evaluate("checks:\n  - kind: no_host_outlier\n", rows);
  const CheckResult& result = verdict.results[0];
  EXPECT_EQ(result.status, CheckStatus::fail);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].subject, "n3");
  EXPECT_EQ(result.findings[0].kind, "slow_host");
  EXPECT_DOUBLE_EQ(*result.findings[0].measured, 20.0);
}

TEST(Acceptance, HostOutlierIsSkippedWithoutPerHostRows) {
  const std::vector<ResultRow> rows{collective_row("all_reduce", 1024, 10)};
  EXPECT_EQ(evaluate("checks:\n  - kind: no_host_outlier\n", rows).results[0].status, CheckStatus::skip);
}

TEST(Acceptance, PairwiseComparesEveryPairAtTheLargestSizeWithTheExpectedBandwidth) {
  const std::vector<ResultRow> rows{pair_row(0, 1, "a", "b", 46), pair_row(1, 0, "b", "a", 44),
                                    // A small size is slower by nature and must not count.
                                    pair_row(0, 1, "a", "b", 1, 8)};
  const AcceptanceVerdict verdict =
      evaluate("checks:\n  - {kind: pairwise_bandwidth, op: bw, expected_gbps: 50, min_fraction: 0.9}\n", rows);
  const CheckResult& result = verdict.results[0];
  EXPECT_EQ(result.rows_checked, 2u);
  ASSERT_EQ(result.findings.size(), 1u);  // 44 < 45 = 0.9 x 50; 46 passes
  EXPECT_THAT(result.findings[0].subject, HasSubstr("rank 1 (b) -> rank 0 (a)"));
  EXPECT_DOUBLE_EQ(*result.findings[0].expected, 50);
}

// The InputError parsing `yaml` as accept.yaml gives, or "no error".
std::string message_of(std::string_view yaml) {
  try {
    parse_thresholds(yaml, "accept.yaml");
  } catch (const InputError& e) { return e.what(); }
  return "no error";
}

TEST(Thresholds, MalformedFilesNameTheLine) {
  EXPECT_EQ(message_of("checks:\n  - kind: min_bandwidth\n    at_least_gbps: fast\n"),
            "accept.yaml:3: 'at_least_gbps': cannot read 'fast' as a number");
  EXPECT_EQ(message_of("checks:\n  - kind: min_bandwith\n"),
            "accept.yaml:2: unknown kind 'min_bandwith' (min_bandwidth, max_latency, zero_wrong, no_host_outlier, "
            "pairwise_bandwidth); did you mean 'min_bandwidth'?");
  EXPECT_EQ(message_of("checks:\n  - kind: zero_wrong\n    treshold: 1\n"),
            "accept.yaml:3: unknown key 'treshold' for this check");
  EXPECT_THAT(message_of("checks:\n  - kind: [zero_wrong\n"), HasSubstr("accept.yaml:3:"));
  EXPECT_EQ(message_of("checks:\n  - kind: min_bandwidth\n    min_bytes: 1Q\n    at_least_gbps: 1\n").substr(0, 15),
            "accept.yaml:3: ");
}

// A mistyped key is named at its own line with the key it was meant to be, not as a required key
// missing at the check's first line.
TEST(Thresholds, AMistypedKeyIsNamedAtItsLineWithTheKeyItMisses) {
  EXPECT_EQ(message_of("checks:\n  - kind: min_bandwidth\n    op: all_reduce\n    at_lest_gbps: 300\n"),
            "accept.yaml:4: unknown key 'at_lest_gbps' for this check; did you mean 'at_least_gbps'?");
  EXPECT_EQ(message_of("checks:\n  - kind: zero_wrong\n    min_byte: 1K\n"),
            "accept.yaml:3: unknown key 'min_byte' for this check; did you mean 'min_bytes'?");
  EXPECT_EQ(message_of("checks:\n  - kind: min_bandwidth\n"),
            "accept.yaml:2: a min_bandwidth check needs 'at_least_gbps'");
}

// A NaN limit fails no comparison and an infinite one every comparison; a key given twice has
// two values of which yaml-cpp silently takes the first.
TEST(Thresholds, NonFiniteLimitsAndRepeatedKeysNameTheLine) {
  EXPECT_EQ(message_of("checks:\n  - kind: min_bandwidth\n    at_least_gbps: .nan\n"),
            "accept.yaml:3: 'at_least_gbps': .nan is not a finite number");
  EXPECT_EQ(message_of("checks:\n  - kind: max_latency\n    at_most_us: .inf\n"),
            "accept.yaml:3: 'at_most_us': .inf is not a finite number");
  EXPECT_EQ(message_of("checks:\n  - kind: pairwise_bandwidth\n    expected_gbps: 50\n    min_fraction: .NaN\n"),
            "accept.yaml:4: 'min_fraction': .NaN is not a finite number");
  EXPECT_EQ(message_of("checks:\n  - kind: max_latency\n    at_most_us: -3\n"),
            "accept.yaml:3: 'at_most_us' must be positive");
  EXPECT_EQ(message_of("checks:\n  - kind: min_bandwidth\n    at_least_gbps: 360\n    at_least_gbps: 3\n"),
            "accept.yaml:4: key 'at_least_gbps' appears twice in this check");
  EXPECT_EQ(message_of("checks:\n  - kind: zero_wrong\nchecks:\n  - kind: zero_wrong\n"),
            "accept.yaml:3: 'checks' appears twice");
}

TEST(Thresholds, AnOpNobodyKnowsIsATypoWithItsLineNotANothingMeasuredFailure) {
  const std::vector<ResultRow> rows{collective_row("all_reduce", 1 << 20, 100), collective_row("BM_Copy", 64, 1)};
  try {
    evaluate("checks:\n  - {kind: min_bandwidth, op: all_reduce, at_least_gbps: 1}\n"
             "  - {kind: min_bandwidth, op: all_reduse, at_least_gbps: 1}\n",
             rows);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::StartsWith("test.yaml:3: unknown op 'all_reduse'"));
  }
  // An op of fabricbench's catalog that was not run fails as unmeasured; an op only a log had
  // (Google Benchmark's family names) is known from the rows.
  const AcceptanceVerdict verdict = evaluate("checks:\n  - {kind: min_bandwidth, op: all_gather, at_least_gbps: 1}\n"
                                             "  - {kind: max_latency, op: BM_Copy, at_most_us: 2}\n",
                                             rows);
  EXPECT_EQ(verdict.results[0].status, CheckStatus::fail);
  EXPECT_EQ(verdict.results[0].summary, "no rows match: nothing was measured for this check");
  EXPECT_EQ(verdict.results[1].status, CheckStatus::pass);
}

TEST(Thresholds, ASizeRangeNoSizeFitsIsAnInputError) {
  EXPECT_EQ(message_of("checks:\n  - {kind: zero_wrong, min_bytes: 1G, max_bytes: 1M}\n"),
            "accept.yaml:2: 'min_bytes' is larger than 'max_bytes': no size is in between");
  EXPECT_EQ(message_of("checks:\n  - {kind: zero_wrong, bytes: 8, min_bytes: 1K}\n"),
            "accept.yaml:2: 'bytes' lies outside 'min_bytes'..'max_bytes'");
  EXPECT_EQ(message_of("checks:\n  - {kind: max_latency, statistic: p95, at_most_us: 1}\n"),
            "accept.yaml:2: statistic 'p95' is not one of min, median, p99, max");
}

TEST(Thresholds, ShippedExamplesParse) {
  for (const char* name : {"dgx_h100_8gpu.yaml", "ib_ndr_2node.yaml"}) {
    const Thresholds thresholds = read_thresholds(std::filesystem::path(FB_THRESHOLDS_DIR) / name);
    EXPECT_GE(thresholds.checks.size(), 4u) << name;
  }
}

}  // namespace
}  // namespace fb
