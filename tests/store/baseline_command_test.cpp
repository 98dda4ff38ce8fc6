// `accept`, `compare` and `campaign --baseline` of the real binary against a real SQLite store
// filled by real MPI runs (`run --store`): the baseline is the runs the store says, the ratios are
// the ones the results files give, a link at a quarter of its speed fails, what the noise leaves
// open never passes, and the verdicts go back into the store.

#include "integration/fabricbench_runs.hpp"
#include "common/robust_statistics.hpp"
#include "common/text_file.hpp"
#include "results/atomic_file.hpp"
#include "results/results_io.hpp"
#include "store/run_store.hpp"
#include "support/temp_dir.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>

namespace fb {
namespace {

using ::testing::HasSubstr;
using testing::describe;
using testing::directly;
using testing::run_process;
using testing::under_mpirun;

class BaselineCommand : public ::testing::Test {
 protected:
  // Four real all_reduce runs on two ranks at 1 MiB (both placements), each recorded as it ends.
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir;
    for (int run = 0; run < 4; ++run) {
      const testing::ProcessResult result =
          run_process(under_mpirun(2, FABRICBENCH_BINARY,
                                   {"run", "all_reduce", "-b", "1M", "-e", "1M", "-n", "40", "-w", "3", "-D",
                                    (dir_->path() / fmt::format("run{}", run)).string(), "--store", store_path()}),
                      testing::allow_root);
      ASSERT_EQ(result.exit_code, 0) << describe(result);
    }
  }
  static void TearDownTestSuite() { delete dir_; }

  static std::string store_path() { return (dir_->path() / "history.sqlite").string(); }
  static std::filesystem::path run_dir(int run) { return dir_->path() / fmt::format("run{}", run); }

  static ResultSet run_file(int run) {
    for (const auto& entry : std::filesystem::directory_iterator(run_dir(run)))
      if (entry.path().extension() == ".json") return read_results_json(entry.path());
    throw std::runtime_error("no results file");
  }

  // Run 3 as a fabric at a quarter of its speed would give it: every time x4, every bandwidth / 4.
  static std::filesystem::path quarter_speed_copy() {
    ResultSet slow = run_file(3);
    slow.provenance.run_id = "quarter-speed";
    for (ResultRow& row : slow.rows) {
      row.run_id = slow.provenance.run_id;
      for (double* time : {&row.time_min_us, &row.time_median_us, &row.time_p99_us, &row.time_max_us}) *time *= 4;
      row.algbw_gbps /= 4;
      if (row.busbw_gbps) *row.busbw_gbps /= 4;
    }
    const std::filesystem::path folder = dir_->path() / "quarter";
    std::filesystem::create_directories(folder);
    write_file_atomically(folder / "quarter-speed.json", results_to_json(slow));
    return folder;
  }

  // The busbw of `placement` (in-place or not) at 1 MiB in a run's file.
  static double busbw(const ResultSet& set, bool in_place) {
    for (const ResultRow& row : set.rows)
      if (row.in_place == in_place) return *row.busbw_gbps;
    throw std::runtime_error("no such row");
  }

  // The measurement lines the command printed: subject -> (verdict, ratio).
  static std::map<std::string, std::pair<std::string, double>> measurement_lines(const std::string& out) {
    std::map<std::string, std::pair<std::string, double>> found;
    for (const std::string& line : testing::lines_of(out)) {
      if (!line.starts_with("  all_reduce 1M")) continue;
      const std::vector<std::string> f = testing::fields_of(line);
      // all_reduce 1M float sum in-place, 2 ranks VERDICT measured baseline ratio runs ...
      const bool in_place = line.find("in-place") != std::string::npos;
      found[in_place ? "in-place" : "out-of-place"] = {f.at(7), std::stod(f.at(10))};
    }
    return found;
  }

  static testing::TempDir* dir_;
};

testing::TempDir* BaselineCommand::dir_ = nullptr;

TEST_F(BaselineCommand, AQuarterSpeedFabricFailsAgainstTheLastRunsWithTheRatiosOfTheFiles) {
  const std::filesystem::path quarter = quarter_speed_copy();
  const testing::ProcessResult result =
      run_process(directly({"accept", quarter.string(), "--baseline", "last", "--store", store_path()}),
                  testing::allow_root);
  EXPECT_THAT(result.out, HasSubstr(fmt::format("the last 20 runs sharing a host with the judged runs in {}: 4 found",
                                                store_path())));
  const auto lines = measurement_lines(result.out);
  ASSERT_EQ(lines.size(), 2U) << result.out;
  double widest_spread = 1;  // the fastest of the four runs over the slowest
  bool undecided = false;
  for (const bool in_place : {false, true}) {
    std::vector<double> history;
    for (int run = 0; run < 4; ++run) history.push_back(busbw(run_file(run), in_place));
    const double expected_ratio = busbw(run_file(3), in_place) / 4 / median_of(history);
    const auto& [verdict, ratio] = lines.at(in_place ? "in-place" : "out-of-place");
    EXPECT_NEAR(ratio, expected_ratio, 0.0005 + 1e-9) << result.out;
    widest_spread = std::max(widest_spread, std::ranges::max(history) / std::ranges::min(history));
    undecided = undecided || verdict == "INCONCLUSIVE";
    if (verdict != "INCONCLUSIVE") { EXPECT_EQ(verdict, "FAIL") << result.out; }
  }
  // On a loaded machine the four real runs can differ by more than a quarter can be told from:
  // then INCONCLUSIVE is the truth, and only a spread that wide may give it.
  if (undecided) {
    ASSERT_GT(widest_spread, 1.5) << "INCONCLUSIVE although the four runs agree within 50%:\n" << result.out;
    GTEST_SKIP() << fmt::format("INCONCLUSIVE: the four runs' busbw differ by {:.2f}x", widest_spread);
  }
  EXPECT_EQ(result.exit_code, 6) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("# baseline verdict: FAIL"));
  // Recorded with its verdict: the store now holds it, failed by accept.
  store::RunStore store(store_path());
  EXPECT_EQ(store.verdicts("quarter-speed"), (std::vector<std::pair<std::string, std::string>>{{"accept", "fail"}}));
}

TEST_F(BaselineCommand, ARealRunPassesOnlyWhereTheNoiseDecidesAndTheExitCodeSaysSo) {
  const ResultSet newest = run_file(3);
  const ResultSet a = run_file(0);
  const ResultSet b = run_file(1);
  const ResultSet c = run_file(2);
  const std::string ids = fmt::format("{},{},{}", a.provenance.run_id, b.provenance.run_id, c.provenance.run_id);
  const testing::ProcessResult result =
      run_process(directly({"compare", "--baseline", ids, run_dir(3).string(), "--store", store_path(), "--fail-on",
                            "regression", "--fail-on", "noisy"}),
                  testing::allow_root);
  const auto lines = measurement_lines(result.out);
  ASSERT_EQ(lines.size(), 2U) << result.out;
  bool all_pass = true;
  for (const bool in_place : {false, true}) {
    const std::vector<double> history{busbw(a, in_place), busbw(b, in_place), busbw(c, in_place)};
    const auto& [verdict, ratio] = lines.at(in_place ? "in-place" : "out-of-place");
    EXPECT_NEAR(ratio, busbw(newest, in_place) / median_of(history), 0.0005 + 1e-9) << result.out;
    EXPECT_THAT(verdict, ::testing::AnyOf("PASS", "FAIL", "INCONCLUSIVE"));
    all_pass = all_pass && verdict == "PASS";
  }
  EXPECT_THAT(result.out, HasSubstr(fmt::format("# baseline: runs {} in {}", ids, store_path())));
  // compare reads the store and records nothing; it fails CI unless every measurement passed.
  EXPECT_EQ(result.exit_code, all_pass ? 0 : 6) << describe(result);
  EXPECT_TRUE(store::RunStore(store_path()).verdicts(newest.provenance.run_id).empty());
}

TEST_F(BaselineCommand, AcceptedBaselinesTakeOnlyRunsThatPassed) {
  const std::filesystem::path pass = dir_->path() / "pass.yaml";
  const std::filesystem::path impossible = dir_->path() / "impossible.yaml";
  std::ofstream(pass) << "checks:\n  - name: no wrong results\n    kind: zero_wrong\n";
  std::ofstream(impossible) << "checks:\n  - name: busbw\n    kind: min_bandwidth\n    op: all_reduce\n"
                               "    metric: busbw_gbps\n    at_least_gbps: 1000000\n";
  for (int run = 0; run < 3; ++run) {
    const testing::ProcessResult accepted =
        run_process(directly({"accept", run_dir(run).string(), "--thresholds", pass.string(), "--store", store_path()}),
                    testing::allow_root);
    ASSERT_EQ(accepted.exit_code, 0) << describe(accepted);
    EXPECT_THAT(accepted.out, HasSubstr("# recorded 1 run and the verdict PASS in the run store"));
  }
  const testing::ProcessResult refused = run_process(directly({"accept", run_dir(3).string(), "--thresholds",
                                                               impossible.string(), "--store", store_path()}),
                                                     testing::allow_root);
  ASSERT_EQ(refused.exit_code, 6) << describe(refused);
  store::RunStore store(store_path());
  // (As a set: the runs' start times are in seconds, and several may share one.)
  std::vector<std::string> accepted = store.recent_run_ids(true);
  std::vector<std::string> expected;
  for (int run = 0; run < 3; ++run) expected.push_back(run_file(run).provenance.run_id);
  std::ranges::sort(accepted);
  std::ranges::sort(expected);
  EXPECT_EQ(accepted, expected);
  // One run is one sample of each size: it cannot bound a median, so the impossible limit is
  // INCONCLUSIVE (as a campaign judges it), not a pass, and not taken as accepted.
  EXPECT_EQ(store.verdicts(run_file(3).provenance.run_id),
            (std::vector<std::pair<std::string, std::string>>{{"accept", "inconclusive"}}));

  // Run 3 judged against the accepted runs: they are 0-2, not itself and not the failed copy.
  const testing::ProcessResult judged =
      run_process(directly({"accept", run_dir(3).string(), "--baseline", "accepted:5", "--store", store_path()}),
                  testing::allow_root);
  EXPECT_THAT(judged.out, HasSubstr("the last 5 accepted runs sharing a host with the judged runs"));
  EXPECT_THAT(judged.out, HasSubstr(": 3 found"));
  const bool passed = judged.out.find("# baseline verdict: PASS") != std::string::npos;
  EXPECT_EQ(judged.exit_code, passed ? 0 : 6) << describe(judged);
}

TEST_F(BaselineCommand, BadBaselinesAreOneLineWithTheirExitCode) {
  const auto err_of = [](const std::vector<std::string>& args, int code) {
    const testing::ProcessResult result = run_process(directly(args), testing::allow_root);
    EXPECT_EQ(result.exit_code, code) << describe(result);
    EXPECT_EQ(std::ranges::count(result.err, '\n'), 1) << result.err;
    return result.err;
  };
  const std::string dir = run_dir(0).string();
  EXPECT_THAT(err_of({"accept", dir, "--baseline", "nosuchrun", "--store", store_path()}, 4),
              HasSubstr("has no run nosuchrun"));
  EXPECT_THAT(err_of({"accept", dir, "--baseline", "last:zero", "--store", store_path()}, 2),
              HasSubstr("must be a whole number of runs"));
  EXPECT_THAT(err_of({"accept", dir, "--baseline", "last", "--store", (dir_->path() / "typo.sqlite").string()}, 4),
              HasSubstr("no run store at"));
  EXPECT_FALSE(std::filesystem::exists(dir_->path() / "typo.sqlite"));
  EXPECT_THAT(err_of({"compare", dir, dir, "--baseline", "last", "--store", store_path()}, 2),
              HasSubstr("takes one result set"));
  EXPECT_THAT(err_of({"accept", dir}, 2), HasSubstr("give --thresholds FILE, --baseline SPEC, or both"));
}

TEST_F(BaselineCommand, CampaignJudgesAgainstTheBaselineAndRecordsItsRunsAndVerdict) {
  const std::filesystem::path plan = dir_->path() / "plan.yaml";
  std::ofstream(dir_->path() / "zero-wrong.yaml") << "checks:\n  - name: no wrong results\n    kind: zero_wrong\n";
  std::ofstream(plan) << "system: baseline-box\ncustomer: fabricbench developers\nbackend: mpi\n"
                         "thresholds: zero-wrong.yaml\nstages:\n"
                         "  - kind: collectives\n    ops: [all_reduce]\n    min_bytes: 1M\n    max_bytes: 1M\n"
                         "    iterations: 40\n    repetitions: 3\n";
  const std::filesystem::path results = dir_->path() / "campaign";
  const testing::ProcessResult result =
      run_process(under_mpirun(2, FABRICBENCH_BINARY,
                               {"campaign", plan.string(), "-D", results.string(), "--no-pdf", "--baseline", "last:4",
                                "--store", store_path()}),
                  testing::allow_root, std::chrono::seconds(200));
  const nlohmann::json summary = nlohmann::json::parse(read_text_file(results / "summary.json"));
  const nlohmann::json* check = nullptr;
  for (const nlohmann::json& c : summary["checks"])
    if (c["name"] == "all_reduce busbw within 10% of the baseline") check = &c;
  ASSERT_NE(check, nullptr) << summary.dump(1);
  // The stage's own results file: one measurement per placement, each over its repetitions.
  ResultSet stage;
  for (const auto& entry : std::filesystem::directory_iterator(results / "stages" / "collectives" / "attempt-1"))
    if (entry.path().extension() == ".json") stage = read_results_json(entry.path());
  ASSERT_EQ(stage.rows.size() % 3, 0U);
  EXPECT_EQ((*check)["measurements"].size(), stage.rows.size() / 3);
  EXPECT_THAT((*check)["statement"].get<std::string>(), HasSubstr("against 4 baseline runs"));
  EXPECT_EQ(result.exit_code, summary["verdict"] == "PASS" ? 0 : 6) << describe(result);
  // The summary with the baseline's checks keeps its published schema.
  const testing::ProcessResult valid = run_process(
      {"/usr/bin/python3", "-c",
       "import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))",
       (results / "summary.json").string(), FABRICBENCH_SUMMARY_SCHEMA});
  EXPECT_EQ(valid.exit_code, 0) << describe(valid);
  // Its run is in the store with the campaign's verdict.
  std::string lower = summary["verdict"].get<std::string>();
  std::ranges::transform(lower, lower.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  // (By its id: runs start times are in seconds, and the suite's runs may share its second.)
  store::RunStore store(store_path());
  const std::string& run_id = stage.provenance.run_id;
  EXPECT_EQ(store.verdicts(run_id), (std::vector<std::pair<std::string, std::string>>{{"campaign", lower}}));
  ASSERT_TRUE(store.run(run_id));
  EXPECT_EQ(store.run(run_id)->rows, stage.rows);
  EXPECT_THAT(result.out, HasSubstr("# recorded 1 run and the verdict"));
}

}  // namespace
}  // namespace fb
