// `fabricbench topo diff` end to end: the real binary on generated dumps written to disk, its
// output, JSON file and exit status.

#include "common/errors.hpp"
#include "fleet_dumps.hpp"
#include "process_runner.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace fb {
namespace {

using ::testing::HasSubstr;
using testing::ProcessResult;
using testing::TempDir;

class TopoDiffCommand : public ::testing::Test {
 protected:
  // Writes the dumps into the temporary directory; returns their paths.
  std::vector<std::string> write(const std::vector<std::pair<std::string, std::string>>& dumps) {
    std::vector<std::string> paths;
    for (const auto& [name, text] : dumps) {
      paths.push_back((dir_ / name).string());
      std::ofstream(paths.back()) << text;
    }
    return paths;
  }

  ProcessResult topo_diff(const std::vector<std::string>& args) {
    std::vector<std::string> argv{FABRICBENCH_BINARY, "topo", "diff"};
    argv.insert(argv.end(), args.begin(), args.end());
    return testing::run_process(argv);
  }

  TempDir dir_;
};

TEST_F(TopoDiffCommand, UniformFleetExitsZero) {
  const ProcessResult result = topo_diff(write(topo::test::fleet_with(4, -1, topo::test::SmiNode{}, "txt")));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_EQ(result.out, "# topo diff: 4 nodes (nvidia-smi), uniform\n");
}

TEST_F(TopoDiffCommand, MissingNicIsPrintedWrittenAsJsonAndFailsWithTheFlagsExitCode) {
  topo::test::SmiNode node;
  node.nic_switch[2] = -1;
  std::vector<std::string> args = write(topo::test::fleet_with(4, 2, node, "txt"));
  const std::string json_path = (dir_ / "diff.json").string();
  args.insert(args.end(), {"--json", json_path});
  const ProcessResult result = topo_diff(args);
  ASSERT_EQ(result.exit_code, static_cast<int>(ExitCode::doctor_flags)) << describe(result);
  EXPECT_EQ(result.out, "# topo diff: 4 nodes (nvidia-smi), 1 deviation(s)\n"
                        "dgx03: mlx5_2: missing here, present on 3 of 4 nodes\n");
  std::ifstream in(json_path);
  const nlohmann::json json = nlohmann::json::parse(in);
  ASSERT_EQ(json.at("deviations").size(), 1u);
  EXPECT_EQ(json.at("deviations")[0].at("node"), "dgx03");
  EXPECT_EQ(json.at("deviations")[0].at("subject"), "mlx5_2");
}

TEST_F(TopoDiffCommand, OneDumpIsAUsageError) {
  const ProcessResult result = topo_diff(write({{"dgx01.txt", topo::test::SmiNode{}.text()}}));
  EXPECT_EQ(result.exit_code, static_cast<int>(ExitCode::usage)) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("topo diff compares nodes: give at least 2 dumps, one per node, got 1"));
}

TEST_F(TopoDiffCommand, MalformedDumpIsAnInputErrorNamingFileAndLine) {
  std::vector<std::pair<std::string, std::string>> dumps = topo::test::fleet_with(3, -1, topo::test::SmiNode{}, "txt");
  dumps[1].second.replace(dumps[1].second.find("NV18"), 4, "NVX");
  const ProcessResult result = topo_diff(write(dumps));
  EXPECT_EQ(result.exit_code, static_cast<int>(ExitCode::input)) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("dgx02.txt:2: expected a link token"));
}

}  // namespace
}  // namespace fb
