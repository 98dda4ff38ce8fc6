// The campaign's state file binds what the record judges: every file a stage left is hashed when
// the stage ends, and a file changed, removed or added since is refused with one line naming it;
// the thresholds' hash of the first run is kept across resumed runs. Real files in a temp folder.

#include "common/errors.hpp"
#include "jobs/campaign/campaign_state.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace fb::jobs {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A stage that left a results CSV and JSON; returns the CSV's path.
std::filesystem::path measured_stage(CampaignState& state, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir / "stages/collectives/attempt-1");
  state.begin("collectives", "stages/collectives/attempt-1");
  const std::filesystem::path csv = dir / "stages/collectives/attempt-1/run.csv";
  std::ofstream(csv) << "op,bytes,busbw_gbps\nall_reduce,1048576,9.51\n";
  std::ofstream(dir / "stages/collectives/attempt-1/run.json") << "{\"rows\": 1}\n";
  state.finish("collectives", StageStatus::completed, "");
  return csv;
}

std::string refusal(const CampaignState& state) {
  try {
    state.verify_files("collectives");
  } catch (const InputError& e) { return e.what(); }
  return "";
}

TEST(CampaignState, HashesEveryFileAStageLeftWithTheSha256OfItsBytes) {
  const testing::TempDir dir;
  CampaignState state(dir / "campaign-state.json", std::string(64, 'a'));
  measured_stage(state, dir.path());
  const nlohmann::json saved = nlohmann::json::parse(read_file(dir / "campaign-state.json"));
  const nlohmann::json& files = saved["stages"]["collectives"]["files"];
  ASSERT_EQ(files.size(), 2u) << saved.dump(2);
  // sha256sum of the CSV's 44 bytes, computed independently.
  EXPECT_EQ(files["stages/collectives/attempt-1/run.csv"],
            sha256_hex("op,bytes,busbw_gbps\nall_reduce,1048576,9.51\n"));
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(refusal(state), "");
  // A reopened state holds the same hashes and still finds the files unchanged.
  const CampaignState reopened(dir / "campaign-state.json", std::string(64, 'a'));
  ASSERT_TRUE(reopened.stage("collectives")->files.has_value());
  EXPECT_EQ(reopened.stage("collectives")->files->size(), 2u);
  EXPECT_EQ(refusal(reopened), "");
}

TEST(CampaignState, AResultFileChangedAfterItsStageIsRefusedInOneLineNamingIt) {
  const testing::TempDir dir;
  CampaignState state(dir / "campaign-state.json", std::string(64, 'a'));
  const std::filesystem::path csv = measured_stage(state, dir.path());
  std::ofstream(csv, std::ios::app) << "all_reduce,2097152,12.0\n";
  const CampaignState reopened(dir / "campaign-state.json", std::string(64, 'a'));
  const std::string message = refusal(reopened);
  EXPECT_THAT(message, HasSubstr(csv.string() + ": changed after stage collectives wrote it"));
  EXPECT_THAT(message, Not(HasSubstr("\n")));
}

TEST(CampaignState, AResultFileRemovedOrAddedAfterItsStageIsRefused) {
  const testing::TempDir dir;
  CampaignState state(dir / "campaign-state.json", std::string(64, 'a'));
  const std::filesystem::path csv = measured_stage(state, dir.path());
  const std::filesystem::path added = dir / "stages/collectives/attempt-1/extra.csv";
  std::ofstream(added) << "op,bytes,busbw_gbps\nall_reduce,1048576,99\n";
  EXPECT_THAT(refusal(state), HasSubstr(added.string() + ": added to stage collectives' results after it ended"));
  std::filesystem::remove(added);
  std::filesystem::remove(csv);
  EXPECT_THAT(refusal(state), HasSubstr(csv.string() + ": stage collectives wrote it"));
}

TEST(CampaignState, AStageRunAgainIsHashedAgainAndAnOldStateFileWithoutHashesIsNotRefused) {
  const testing::TempDir dir;
  {
    CampaignState state(dir / "campaign-state.json", std::string(64, 'a'));
    const std::filesystem::path csv = measured_stage(state, dir.path());
    std::ofstream(csv, std::ios::app) << "all_reduce,2097152,12.0\n";
    // Measured again: the new attempt's files are what the record rests on.
    std::filesystem::create_directories(dir / "stages/collectives/attempt-2");
    state.begin("collectives", "stages/collectives/attempt-2");
    EXPECT_FALSE(state.stage("collectives")->files.has_value());
    std::ofstream(dir / "stages/collectives/attempt-2/run.csv") << "op\n";
    state.finish("collectives", StageStatus::completed, "");
    EXPECT_EQ(refusal(state), "");
    EXPECT_EQ(state.stage("collectives")->files->count("stages/collectives/attempt-2/run.csv"), 1u);
  }
  nlohmann::json old = nlohmann::json::parse(read_file(dir / "campaign-state.json"));
  old["stages"]["collectives"].erase("files");
  std::ofstream(dir / "campaign-state.json") << old.dump(2);
  std::ofstream(dir / "stages/collectives/attempt-2/run.csv", std::ios::app) << "x\n";
  const CampaignState reopened(dir / "campaign-state.json", std::string(64, 'a'));
  EXPECT_FALSE(reopened.stage("collectives")->files.has_value());
  EXPECT_EQ(refusal(reopened), "");
}

TEST(CampaignState, KeepsTheThresholdsOfTheFirstRunAcrossResumedRuns) {
  const testing::TempDir dir;
  {
    CampaignState state(dir / "campaign-state.json", std::string(64, 'a'));
    EXPECT_FALSE(state.measured_thresholds_sha256().has_value());
    state.bind_thresholds(std::string(64, '1'));
  }
  CampaignState resumed(dir / "campaign-state.json", std::string(64, 'a'));
  resumed.bind_thresholds(std::string(64, '2'));  // edited between the runs
  EXPECT_EQ(resumed.measured_thresholds_sha256(), std::string(64, '1'));
  const nlohmann::json saved = nlohmann::json::parse(read_file(dir / "campaign-state.json"));
  EXPECT_EQ(saved["thresholds_sha256"], std::string(64, '1'));
}

}  // namespace
}  // namespace fb::jobs
