// A campaign's verdict cannot say more than was measured: a stage interrupted or short of its
// planned repetitions, and a model check that cannot be derived, are INCONCLUSIVE checks with their
// reasons, and the exit code is 6, never PASS. Real plan, thresholds, state and results files in a
// temp folder, judged by the campaign's own CampaignOutputs (no MPI, no PDF).

#include "jobs/campaign/campaign_outputs.hpp"
#include "jobs/campaign/campaign_plan.hpp"
#include "jobs/campaign/campaign_state.hpp"
#include "results/results_io.hpp"
#include "support/result_rows.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace fb::jobs {
namespace {

using ::testing::HasSubstr;

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

class CampaignOutputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access("/usr/bin/gnuplot", X_OK) != 0) GTEST_SKIP() << "the record's plots need gnuplot (scripts/setup.sh)";
    std::filesystem::create_directories(dir_ / "thresholds");
    std::filesystem::create_directories(dir_ / "results");
    std::ofstream(dir_ / "thresholds" / "cpu.yaml") << "checks:\n  - name: all_reduce busbw at 1M\n"
                                                    << "    kind: min_bandwidth\n    op: all_reduce\n    bytes: 1M\n"
                                                    << "    metric: busbw_gbps\n    at_least_gbps: 0.02\n";
  }

  // The plan: one collectives stage of 10 repetitions, and `extra` (model_checks) when given.
  CampaignPlan plan(const std::string& extra = "") {
    std::ofstream(dir_ / "plan.yaml") << "system: cpu-dev-box\ncustomer: fabricbench developers\n"
                                      << "thresholds: thresholds/cpu.yaml\n"
                                      << extra << "stages:\n  - kind: collectives\n    ops: [all_reduce]\n"
                                      << "    min_bytes: 1M\n    max_bytes: 1M\n    repetitions: 10\n";
    CampaignPlan read = read_campaign_plan(dir_ / "plan.yaml");
    read.results_dir = dir_ / "results";
    return read;
  }

  // The stage's attempt with `repetitions` repetitions of all_reduce at 1M (0.4 GB/s busbw, twenty
  // times the limit), ended as `status`.
  void stage(CampaignState& state, int repetitions, StageStatus status, const std::string& message = "") {
    const std::string folder = "stages/collectives/attempt-1";
    std::filesystem::create_directories(dir_ / "results" / folder);
    state.begin("collectives", folder);
    ResultSet set;
    set.provenance.run_id = "run-a";
    set.provenance.rank_hosts = {"devbox", "devbox", "devbox", "devbox"};
    for (int rep = 0; rep < repetitions; ++rep) {
      ResultRow row = testing::collective_row("all_reduce", 1 << 20, 3932.0 + rep, 4);
      row.repetition = rep;
      set.rows.push_back(row);
    }
    std::ofstream(dir_ / "results" / folder / "run-a.json") << results_to_json(set);
    state.finish("collectives", status, message);
  }

  struct Judged {
    int exit_code = 0;
    std::string console;
    nlohmann::json summary;
  };

  Judged judge(const CampaignPlan& read, CampaignState& state) {
    const CampaignOutputs outputs(read, false, "");
    std::ostringstream out;
    Judged judged;
    judged.exit_code = outputs.write(state, out);
    judged.console = out.str();
    judged.summary = read_json(dir_ / "results" / "summary.json");
    return judged;
  }

  const nlohmann::json* check_named(const nlohmann::json& summary, const std::string& prefix) {
    for (const nlohmann::json& check : summary["checks"])
      if (check["name"].get<std::string>().rfind(prefix, 0) == 0) return &check;
    return nullptr;
  }

  testing::TempDir scratch_;
  std::filesystem::path dir_ = scratch_.path();
};

TEST_F(CampaignOutputsTest, EveryPlannedRepetitionMeasuredPasses) {
  const CampaignPlan read = plan();
  CampaignState state(dir_ / "results" / "campaign-state.json", sha256_hex(read.text));
  stage(state, 10, StageStatus::completed);
  const Judged judged = judge(read, state);
  EXPECT_EQ(judged.exit_code, 0) << judged.console;
  EXPECT_EQ(judged.summary["verdict"], "PASS");
  ASSERT_EQ(judged.summary["checks"].size(), 1u);
  EXPECT_EQ(judged.summary["checks"][0]["measurements"][0]["repetitions"], 10);
}

TEST_F(CampaignOutputsTest, AnInterruptedStageIsInconclusiveWithItsReasonAndExits6) {
  const CampaignPlan read = plan();
  CampaignState state(dir_ / "results" / "campaign-state.json", sha256_hex(read.text));
  // Ten repetitions measured and every one far over the limit: the check alone would pass.
  stage(state, 10, StageStatus::interrupted, "SIGTERM");
  const Judged judged = judge(read, state);
  EXPECT_EQ(judged.exit_code, 6) << judged.console;
  EXPECT_EQ(judged.summary["verdict"], "INCONCLUSIVE");
  EXPECT_EQ(check_named(judged.summary, "all_reduce busbw at 1M")->at("verdict"), "PASS");
  const nlohmann::json* planned = check_named(judged.summary, "every planned measurement taken");
  ASSERT_NE(planned, nullptr) << judged.summary.dump(2);
  EXPECT_EQ(planned->at("verdict"), "INCONCLUSIVE");
  EXPECT_EQ(planned->at("statement"),
            "INCONCLUSIVE: stage collectives is interrupted (SIGTERM): its checks rest on less than was planned");
  EXPECT_THAT(judged.console, HasSubstr("# verdict: INCONCLUSIVE"));
}

TEST_F(CampaignOutputsTest, AStageShortOfItsRepetitionsIsInconclusive) {
  const CampaignPlan read = plan();
  CampaignState state(dir_ / "results" / "campaign-state.json", sha256_hex(read.text));
  stage(state, 6, StageStatus::completed);
  const Judged judged = judge(read, state);
  EXPECT_EQ(judged.exit_code, 6) << judged.console;
  EXPECT_EQ(judged.summary["verdict"], "INCONCLUSIVE");
  const nlohmann::json* planned = check_named(judged.summary, "every planned measurement taken");
  ASSERT_NE(planned, nullptr) << judged.summary.dump(2);
  EXPECT_EQ(planned->at("statement"), "INCONCLUSIVE: stage collectives holds 6 of 10 planned repetitions");
}

// model_checks on a topology that does not hold the measured host: no check can be derived, and
// the record says so as an INCONCLUSIVE check instead of leaving it out.
TEST_F(CampaignOutputsTest, AModelCheckThatCannotBeDerivedIsInconclusiveNotAbsent) {
  const std::filesystem::path topology = std::filesystem::path(FB_SOURCE_DIR) / "docs/examples/h100-roce400.yaml";
  const CampaignPlan read = plan("model_checks:\n  topology: [" + topology.string() + "]\n  fraction: 0.5\n");
  CampaignState state(dir_ / "results" / "campaign-state.json", sha256_hex(read.text));
  stage(state, 10, StageStatus::completed);
  const Judged judged = judge(read, state);
  EXPECT_EQ(judged.exit_code, 6) << judged.console;
  EXPECT_EQ(judged.summary["verdict"], "INCONCLUSIVE");
  const nlohmann::json* derived = check_named(judged.summary, "collective busbw >= 50% of the model");
  ASSERT_NE(derived, nullptr) << judged.summary.dump(2);
  EXPECT_EQ(derived->at("verdict"), "INCONCLUSIVE");
  EXPECT_EQ(derived->at("origin"), "topology model");
  EXPECT_THAT(derived->at("statement").get<std::string>(), HasSubstr("no check could be derived"));
}

}  // namespace
}  // namespace fb::jobs
