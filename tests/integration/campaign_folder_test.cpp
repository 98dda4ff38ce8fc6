// A campaign's results folder guarded under a real mpirun: two campaigns started into one folder
// at once (one runs, the other is refused: no rows judged twice), a stage folder rank 0 cannot make
// (every rank hears of it: no rank left in a collective), a state file pointing a stage's rows
// outside the folder, and a folder holding the user's own outputs but no state file.

#include "fabricbench_runs.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace fb::testing {
namespace {

using ::testing::HasSubstr;

constexpr int usage_exit = 2;
constexpr int input_exit = 4;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class CampaignFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("fb-campaign-folder-" + std::to_string(::getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "thresholds.yaml") << "checks:\n  - name: all_reduce busbw at 1K\n    kind: min_bandwidth\n"
                                            << "    op: all_reduce\n    bytes: 1K\n    metric: busbw_gbps\n"
                                            << "    at_least_gbps: 1e-9\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Eight repetitions of a 1 KiB all_reduce, judged by one check; with `soak_s`, a soak stage after
  // it that keeps the campaign (and its lock) going that long.
  void write_plan(int soak_s) const {
    std::ofstream plan(dir_ / "tiny.yaml");
    plan << "system: tiny-box\ncustomer: fabricbench developers\nthresholds: thresholds.yaml\nstages:\n"
         << "  - kind: collectives\n    ops: [all_reduce]\n    min_bytes: 1K\n    max_bytes: 1K\n"
         << "    iterations: 5\n    repetitions: 8\n";
    if (soak_s > 0)
      plan << "  - kind: soak\n    min_bytes: 64K\n    max_bytes: 64K\n    iterations: 5\n    duration: " << soak_s
           << "s\n";
  }
  std::vector<std::string> campaign() const {
    return under_mpirun(2, FABRICBENCH_BINARY,
                        {"campaign", (dir_ / "tiny.yaml").string(), "-D", results().string(), "--no-pdf"});
  }
  std::filesystem::path results() const { return dir_ / "results"; }
  nlohmann::json state() const { return nlohmann::json::parse(read_file(results() / "campaign-state.json")); }

  std::filesystem::path dir_;
};

TEST_F(CampaignFolder, TwoCampaignsStartedAtOnceIntoOneFolderRunOnce) {
  write_plan(5);
  ChildProcess first(campaign(), allow_root);
  ChildProcess second(campaign(), allow_root);
  const ProcessResult a = first.wait(std::chrono::seconds(120));
  const ProcessResult b = second.wait(std::chrono::seconds(120));
  const ProcessResult& ran = a.exit_code == 0 ? a : b;
  const ProcessResult& refused = a.exit_code == 0 ? b : a;
  ASSERT_EQ(ran.exit_code, 0) << describe(a) << describe(b);
  EXPECT_EQ(refused.exit_code, usage_exit) << describe(refused);
  EXPECT_THAT(refused.err, HasSubstr(results().string() + ": another campaign is running in this folder"));
  EXPECT_THAT(refused.out, ::testing::Not(HasSubstr("# stage")));
  // The summary judges the plan's eight repetitions, once.
  const nlohmann::json summary = nlohmann::json::parse(read_file(results() / "summary.json"));
  ASSERT_EQ(summary["checks"].size(), 1U);
  EXPECT_EQ(summary["checks"][0]["measurements"][0]["repetitions"], 8) << summary["checks"].dump(2);
  EXPECT_EQ(state()["stages"]["collectives"]["attempts"], 1);
}

TEST_F(CampaignFolder, StageFolderRankZeroCannotMakeFailsTheStageOnEveryRank) {
  write_plan(0);
  std::filesystem::create_directories(results() / "stages");
  std::ofstream(results() / "stages" / "collectives") << "a file where the stage's folder goes\n";
  const ProcessResult result = run_process(campaign(), allow_root, std::chrono::seconds(60));
  ASSERT_FALSE(result.timed_out) << "a rank waited in a collective for rank 0: " << describe(result);
  EXPECT_NE(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("# stage collectives: failed: cannot create its results folder"));
  EXPECT_EQ(state()["stages"]["collectives"]["status"], "failed");
}

TEST_F(CampaignFolder, StateFileCannotPointAStagesRowsOutsideTheFolder) {
  write_plan(0);
  const ProcessResult done = run_process(campaign(), allow_root, std::chrono::seconds(60));
  ASSERT_EQ(done.exit_code, 0) << describe(done);
  // The rows copied outside the folder, where a tampered state file points.
  const std::filesystem::path elsewhere = dir_ / "elsewhere";
  std::filesystem::copy(results() / "stages" / "collectives" / "attempt-1", elsewhere,
                        std::filesystem::copy_options::recursive);
  std::filesystem::create_directory_symlink(elsewhere, results() / "stages" / "linked");
  const nlohmann::json original = state();
  const std::vector<std::pair<std::string, std::string>> tampered{
      {"../elsewhere", "climbs out with '..'"},
      {elsewhere.string(), "is not a path inside the folder"},
      {"stages/linked", "passes through the symbolic link " + (results() / "stages" / "linked").string()}};
  for (const auto& [path, why] : tampered) {
    nlohmann::json edited = original;
    edited["stages"]["collectives"]["results"] = path;
    std::ofstream(results() / "campaign-state.json") << edited.dump(2);
    const ProcessResult rerun = run_process(campaign(), allow_root, std::chrono::seconds(60));
    EXPECT_EQ(rerun.exit_code, input_exit) << path << ": " << describe(rerun);
    EXPECT_THAT(rerun.err, HasSubstr("stage results '" + path + "' " + why)) << path;
  }
}

TEST_F(CampaignFolder, UsersOwnOutputsWithoutAStateFileAreNotReplaced) {
  write_plan(0);
  std::filesystem::create_directories(results());
  std::ofstream(results() / "summary.json") << "{\"mine\": true}\n";
  std::ofstream(results() / "junit.xml") << "<testsuites name=\"mine\"/>\n";
  const ProcessResult result = run_process(campaign(), allow_root, std::chrono::seconds(60));
  EXPECT_EQ(result.exit_code, input_exit) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("holds summary.json but no campaign-state.json"));
  EXPECT_EQ(read_file(results() / "summary.json"), "{\"mine\": true}\n");
  EXPECT_EQ(read_file(results() / "junit.xml"), "<testsuites name=\"mine\"/>\n");
  EXPECT_FALSE(std::filesystem::exists(results() / "campaign-state.json"));
  EXPECT_FALSE(std::filesystem::exists(results() / "stages"));
}

}  // namespace
}  // namespace fb::testing
