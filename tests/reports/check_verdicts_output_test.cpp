// The acceptance judgement rendered: JUnit XML and JSON hold what diagnosis::judge_acceptance
// decided, INCONCLUSIVE as a failure CI cannot pass on, and every string from an input escaped.

#include "diagnosis/acceptance_judgement.hpp"
#include "reports/acceptance/check_verdicts_output.hpp"
#include "support/result_rows.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

namespace fb {
namespace {

using ::testing::HasSubstr;
using testing::collective_row;
using testing::pair_row;

diagnosis::AcceptanceJudgement judge(std::string_view yaml, const std::vector<ResultRow>& rows) {
  const diagnosis::Thresholds thresholds = diagnosis::parse_thresholds(yaml, "t.yaml");
  return diagnosis::judge_acceptance({.rows = rows, .thresholds = &thresholds, .confidence = 0.95}, "accept");
}

TEST(CheckVerdictsOutput, AStatisticNeverReportedIsAnInconclusiveFailureInJunit) {
  // As imported from OSU or nccl-tests: one time per size, the p99 not reported.
  ResultRow imported = collective_row("latency", 8, 2.0, 2);
  imported.unreported_statistics = "time_min_us time_p99_us time_max_us time_cv";
  const diagnosis::AcceptanceJudgement judged =
      judge("checks:\n  - {kind: max_latency, op: latency, statistic: p99, at_most_us: 5}\n", {imported});
  ASSERT_EQ(judged.checks.size(), 1u);
  EXPECT_EQ(judged.checks[0].decision, diagnosis::Decision::inconclusive);
  EXPECT_EQ(judged.decision, diagnosis::Decision::inconclusive);
  const std::string junit = check_verdicts_junit_xml(judged.checks, "accept", "t.yaml");
  EXPECT_THAT(junit, HasSubstr("tests=\"1\" failures=\"1\" skipped=\"0\""));
  EXPECT_THAT(junit, HasSubstr("type=\"inconclusive\""));
  EXPECT_THAT(junit, HasSubstr("classname=\"fabricbench.accept.max_latency\""));
  const nlohmann::json json = acceptance_json(judged, "t.yaml", 0.95);
  EXPECT_EQ(json.at("schema"), "fabricbench.accept.v2");
  EXPECT_EQ(json.at("verdict"), "INCONCLUSIVE");
  EXPECT_EQ(json.at("checks").at(0).at("verdict"), "INCONCLUSIVE");
}

TEST(CheckVerdictsOutput, OneTestCasePerCheckWithEscapedFailures) {
  std::vector<ResultRow> rows;
  // Eight repetitions of one pair far under its expectation: a FAIL the repetitions decide (six
  // are the fewest that bound a median at 2.5%).
  for (int repetition = 0; repetition < 8; ++repetition) {
    ResultRow row = pair_row(0, 1, "<host&1>", "b", 10);
    row.repetition = repetition;
    rows.push_back(row);
  }
  const diagnosis::AcceptanceJudgement judged =
      judge("checks:\n  - {kind: pairwise_bandwidth, expected_gbps: 50}\n  - {kind: zero_wrong}\n  - {kind: "
            "no_host_outlier}\n",
            rows);
  ASSERT_EQ(judged.checks.size(), 3u);
  EXPECT_EQ(judged.checks[0].decision, diagnosis::Decision::fail);
  EXPECT_TRUE(judged.checks[2].skipped);  // one pair: too few hosts to compare
  const std::string xml = check_verdicts_junit_xml(judged.checks, "accept", "accept.yaml");
  EXPECT_THAT(xml, HasSubstr("tests=\"3\" failures=\"1\" skipped=\"1\""));
  EXPECT_THAT(xml, HasSubstr("type=\"fail\""));
  EXPECT_THAT(xml, HasSubstr("&lt;host&amp;1&gt;"));
  EXPECT_THAT(xml, ::testing::Not(HasSubstr("<host&1>")));
  std::ostringstream console;
  print_check_verdicts(console, judged);
  EXPECT_THAT(console.str(), HasSubstr("# verdict: FAIL\n"));
}

}  // namespace
}  // namespace fb
