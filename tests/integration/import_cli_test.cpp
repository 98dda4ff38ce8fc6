// `fabricbench import`, `accept` and `compare` run as a user runs them, on real logs of the corpus:
// what the importer assumed is a warning line, a statistic the log never had is not a pass, and a
// comparison of logs without spread says so instead of "0 beyond the spread".

#include "fabricbench_runs.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <unistd.h>

namespace fb::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::filesystem::path corpus_dir = FB_CORPUS_LOGS_DIR;

class ImportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("fb-import-cli-" + std::to_string(::getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ProcessResult fabricbench(const std::vector<std::string>& args) {
    std::vector<std::string> argv{FABRICBENCH_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv);
  }

  std::filesystem::path dir_;
};

TEST_F(ImportCli, AssumptionsAreWarningsAndStayInTheResults) {
  const ProcessResult result = fabricbench(
      {"import", (corpus_dir / "nccl_test_result_a3mega_pasted_table_only.log").string(), "-o", dir_.string()});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const std::vector<std::string> warnings = lines_of(result.err);
  ASSERT_EQ(warnings.size(), 2u) << describe(result);
  EXPECT_THAT(warnings[0], ::testing::StartsWith("warning: "));
  EXPECT_THAT(warnings[0], HasSubstr("16 ranks from the launcher line"));
  EXPECT_THAT(warnings[1], HasSubstr("2 nodes of 8 ranks each"));
  std::ifstream json(dir_ / "nccl-tests-nccl_test_result_a3mega_pasted_table_only.json");
  const std::string text((std::istreambuf_iterator<char>(json)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("\"assumptions\""));
  EXPECT_THAT(text, HasSubstr("16 ranks from the launcher line"));
  EXPECT_THAT(text, HasSubstr("\"nranks\": 16"));
}

TEST_F(ImportCli, RepeatedRunsInOneLogBecomeOneResultSet) {
  const ProcessResult result = fabricbench(
      {"import", (corpus_dir / "all_gather_perf_mpi_3reps_one_file_rtx5090.log").string(), "-o", dir_.string()});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const std::filesystem::path json = dir_ / "nccl-tests-all_gather_perf_mpi_3reps_one_file_rtx5090.json";
  ASSERT_TRUE(std::filesystem::exists(json));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "nccl-tests-all_gather_perf_mpi_3reps_one_file_rtx5090-run1.json"));
  std::ifstream in(json);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("\"repetition\": 2"));
}

TEST_F(ImportCli, AcceptOnAStatisticTheLogNeverHadIsNotAvailableAndExits6) {
  ASSERT_EQ(fabricbench(
                {"import", (corpus_dir / "osu7.5_latency_validation_host_alps_cxi.txt").string(), "-o", dir_.string()})
                .exit_code,
            0);
  const std::filesystem::path thresholds = dir_ / "p99.yaml";
  std::ofstream(thresholds)
      << "checks:\n  - {kind: max_latency, op: latency, bytes: 8, statistic: p99, at_most_us: 5}\n"
         "  - {kind: max_latency, op: latency, bytes: 8, at_most_us: 5}\n";
  const ProcessResult result = fabricbench({"accept", dir_.string(), "--thresholds", thresholds.string()});
  EXPECT_EQ(result.exit_code, 6) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("INCONCLUSIVE: not available: 1 selected rows do not report time_p99_us"));
  // The median, 3.34 us at 8 B, is one sample: as a campaign would, accept does not pass it.
  EXPECT_THAT(result.out, HasSubstr("INCONCLUSIVE: 0 of 1 measurements pass, 1 cannot be decided"));
  EXPECT_THAT(result.out, HasSubstr("# verdict: INCONCLUSIVE"));

  // The same verdict for machines, as its published schema says.
  const std::filesystem::path json = dir_ / "accept.json";
  ASSERT_EQ(
      fabricbench({"accept", dir_.string(), "--thresholds", thresholds.string(), "--json", json.string()}).exit_code,
      6);
  const ProcessResult valid = run_process({"/usr/bin/python3", "-c",
                                           "import json, sys, jsonschema; d = json.load(open(sys.argv[1])); "
                                           "jsonschema.validate(d, json.load(open(sys.argv[2]))); "
                                           "print(d['verdict'], [c['verdict'] for c in d['checks']], "
                                           "[c['rows'] for c in d['checks']])",
                                           json.string(), FB_SCHEMAS_DIR "/accept.schema.json"});
  EXPECT_EQ(valid.exit_code, 0) << describe(valid);
  EXPECT_EQ(valid.out, "INCONCLUSIVE ['INCONCLUSIVE', 'INCONCLUSIVE'] [0, 1]\n");
}

TEST_F(ImportCli, CompareOfLogsWithoutSpreadJudgesTheDefaultBound) {
  const std::filesystem::path a = dir_ / "a", b = dir_ / "b";
  ASSERT_EQ(fabricbench({"import", (corpus_dir / "all_gather_perf_2x_gb10_spark_switch_rsfec_normal.log").string(),
                         "-o", a.string()})
                .exit_code,
            0);
  ASSERT_EQ(fabricbench({"import",
                         (corpus_dir / "all_gather_perf_2x_gb10_spark_directcable_nofec_degraded.log").string(), "-o",
                         b.string()})
                .exit_code,
            0);
  const ProcessResult result = fabricbench({"compare", a.string(), b.string()});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  // The direct cable without FEC is 7.0-7.9x slower at every size: all six beyond the 10% bound.
  EXPECT_THAT(result.out, HasSubstr("spread not available for 6 sizes (a side reports one time per size): 6 beyond "
                                    "the default noise bound of 10%"));
  EXPECT_THAT(result.out, Not(HasSubstr("0 beyond the spread")));

  const std::filesystem::path json = dir_ / "compare.json";
  ASSERT_EQ(fabricbench({"compare", a.string(), b.string(), "--json", json.string()}).exit_code, 0);
  const ProcessResult valid = run_process({"/usr/bin/python3", "-c",
                                           "import json, sys, jsonschema; d = json.load(open(sys.argv[1])); "
                                           "jsonschema.validate(d, json.load(open(sys.argv[2]))); "
                                           "print(d['regressions'], d['too_noisy'], len(d['ops'][0]['rows']), "
                                           "d['ops'][0]['rows'][0]['spread_fraction'])",
                                           json.string(), FB_SCHEMAS_DIR "/compare.schema.json"});
  EXPECT_EQ(valid.exit_code, 0) << describe(valid);
  EXPECT_EQ(valid.out, "6 0 6 None\n");  // six slower sizes, no recorded spread
}

TEST_F(ImportCli, FailOnTurnsRegressionsAndFailedVerdictsIntoExitCode6) {
  const std::filesystem::path normal = dir_ / "normal", degraded = dir_ / "degraded";
  ASSERT_EQ(fabricbench({"import", (corpus_dir / "all_gather_perf_2x_gb10_spark_switch_rsfec_normal.log").string(),
                         "-o", normal.string()})
                .exit_code,
            0);
  ASSERT_EQ(fabricbench({"import",
                         (corpus_dir / "all_gather_perf_2x_gb10_spark_directcable_nofec_degraded.log").string(), "-o",
                         degraded.string()})
                .exit_code,
            0);
  // The degraded cable is slower at all six sizes: a regression from normal to degraded, not back.
  ProcessResult result = fabricbench({"compare", normal.string(), degraded.string(), "--fail-on", "regression"});
  EXPECT_EQ(result.exit_code, 6) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("# regressions: 6 sizes where B is slower than A beyond the spread"));
  result = fabricbench({"compare", degraded.string(), normal.string(), "--fail-on", "regression"});
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("# regressions: 0 sizes"));

  // No thresholds: nothing was judged, which is not a pass.
  const std::string html = (dir_ / "r.html").string();
  result = fabricbench({"report", degraded.string(), "-o", html, "--fail-on", "fail"});
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("# verdict: NOT JUDGED: no thresholds given"));
  EXPECT_EQ(fabricbench({"report", degraded.string(), "-o", html, "--fail-on", "not-pass"}).exit_code, 6);

  const std::filesystem::path thresholds = dir_ / "busbw.yaml";
  std::ofstream(thresholds) << "checks:\n  - {kind: min_bandwidth, op: all_gather, min_bytes: 1G, at_least_gbps: 10}\n";
  // One log holds one time per size: one sample per measurement decides no limit, as `accept` and
  // `campaign` judge the same rows. The report says so instead of passing or failing either run.
  for (const std::filesystem::path& run : {degraded, normal}) {
    result =
        fabricbench({"report", run.string(), "--thresholds", thresholds.string(), "-o", html, "--fail-on", "not-pass"});
    EXPECT_EQ(result.exit_code, 6) << describe(result);
    EXPECT_THAT(result.out, HasSubstr("# verdict: INCONCLUSIVE: 1 of 1 checks could not be decided"));
    EXPECT_EQ(fabricbench(
                  {"report", run.string(), "--thresholds", thresholds.string(), "-o", html, "--fail-on", "fail"})
                  .exit_code,
              0);
  }
}

TEST_F(ImportCli, AnOpTypoInTheThresholdsIsAnInputErrorWithItsLine) {
  ASSERT_EQ(fabricbench({"import", (corpus_dir / "all_gather_perf_2x_gb10_spark_switch_rsfec_normal.log").string(),
                         "-o", dir_.string()})
                .exit_code,
            0);
  const std::filesystem::path thresholds = dir_ / "typo.yaml";
  std::ofstream(thresholds) << "checks:\n  - {kind: min_bandwidth, op: all_gather, at_least_gbps: 1}\n"
                               "  - {kind: min_bandwidth, op: all_reduse, at_least_gbps: 1}\n";
  const ProcessResult result = fabricbench({"accept", dir_.string(), "--thresholds", thresholds.string()});
  EXPECT_EQ(result.exit_code, 4) << describe(result);
  EXPECT_THAT(result.err, HasSubstr(thresholds.string() + ":3: unknown op 'all_reduse'"));
  EXPECT_EQ(result.out, "");
}

TEST_F(ImportCli, ReportPrintsItselfToPdf) {
  if (::access("/usr/bin/chromium", X_OK) != 0) GTEST_SKIP() << "chromium is missing (scripts/setup.sh installs it)";
  ASSERT_EQ(fabricbench(
                {"import", (corpus_dir / "nccl_test_result_a3mega_h100_2node_np16.md").string(), "-o", dir_.string()})
                .exit_code,
            0);
  const std::filesystem::path pdf = dir_ / "report.pdf";
  const ProcessResult result =
      fabricbench({"report", dir_.string(), "-o", (dir_ / "report.html").string(), "--pdf", pdf.string()});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  std::ifstream in(pdf, std::ios::binary);
  const std::string document((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(document.starts_with("%PDF-")) << document.substr(0, 16);
  // The verdict, the findings, two plots with their table and the provenance: more than one page.
  std::size_t pages = 0;
  for (std::size_t at = document.find("/Type /Page\n"); at != std::string::npos;
       at = document.find("/Type /Page\n", at + 1))
    ++pages;
  EXPECT_GE(pages, 2u);
}

}  // namespace
}  // namespace fb::testing
