// The real binary on input meant to hurt: a -i sweep of a billion sizes (refused up front, not
// std::bad_alloc), NaN and infinite flag values (a usage error), and escape sequences in a
// campaign plan's names and a results file's run id (shown escaped, never sent to the terminal).

#include "integration/fabricbench_runs.hpp"
#include "common/text_file.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fb {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::describe;
using testing::directly;
using testing::run_process;

constexpr int usage_exit = 2;

std::size_t lines_of(const std::string& text) { return static_cast<std::size_t>(std::ranges::count(text, '\n')); }

TEST(HostileInput, ABillionSizeLinearSweepIsRefusedBeforeItIsBuilt) {
  const testing::TempDir dir;
  const testing::ProcessResult result =
      run_process(directly({"run", "all_reduce", "-b", "4", "-e", "4G", "-i", "4", "-D", (dir / "results").string()}),
                  testing::allow_root, std::chrono::seconds(60));
  EXPECT_EQ(result.exit_code, usage_exit) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("-b 4 to -e 4294967296 in steps of -i 4 makes 1073741824 sizes"));
  EXPECT_THAT(result.err, Not(HasSubstr("bad_alloc")));
  EXPECT_EQ(lines_of(result.err), 1U) << result.err;
}

TEST(HostileInput, NanAndInfiniteFlagValuesAreUsageErrors) {
  const testing::TempDir dir;
  for (const std::string value : {"nan", "inf", "1e999"}) {
    const testing::ProcessResult drift = run_process(
        directly({"history", "drift", "--cusum-threshold", value, "--store", (dir / "none.sqlite").string()}));
    EXPECT_EQ(drift.exit_code, usage_exit) << describe(drift);
    // NaN passes a range check (it compares false): the finite check names it. An infinite value
    // is out of the flag's range before that check runs: refused all the same.
    EXPECT_THAT(drift.err, ::testing::AnyOf(HasSubstr(value + " is not a finite number"), HasSubstr("not in range")));
    EXPECT_FALSE(std::filesystem::exists(dir / "none.sqlite"));
  }
  const testing::ProcessResult min_time =
      run_process(directly({"run", "all_reduce", "--min-time", "nan", "-D", (dir / "results").string()}),
                  testing::allow_root);
  EXPECT_EQ(min_time.exit_code, usage_exit) << describe(min_time);
}

TEST(HostileInput, EscapeSequencesInAPlanAndARunIdReachTheConsoleEscaped) {
  const testing::TempDir dir;
  // ESC [2J clears the screen; ESC ]0;...BEL retitles the terminal window.
  std::ofstream(dir / "zero-wrong.yaml") << "checks:\n  - kind: zero_wrong\n";
  std::ofstream(dir / "plan.yaml")
      << "system: \"box\\e[2J\"\ncustomer: \"us\\e]0;owned\\a\"\nthresholds: zero-wrong.yaml\nstages:\n"
      << "  - kind: collectives\n    min_bytes: 1K\n    max_bytes: 1K\n";
  const testing::ProcessResult plan =
      run_process(directly({"campaign", (dir / "plan.yaml").string(), "--dry-run", "-D", (dir / "campaign").string()}),
                  testing::allow_root);
  EXPECT_EQ(plan.exit_code, 0) << describe(plan);
  EXPECT_THAT(plan.out, HasSubstr("# campaign: box\\x1b[2J for us\\x1b]0;owned\\x07, results in"));
  EXPECT_EQ(plan.out.find('\x1b'), std::string::npos);

  // A run recorded, its id then edited in the results file to carry an escape sequence.
  const testing::ProcessResult ran = run_process(directly({"run", "all_reduce", "-b", "8", "-e", "8", "-n", "1", "-w",
                                                           "0", "-D", (dir / "results").string()}),
                                                 testing::allow_root);
  ASSERT_EQ(ran.exit_code, 0) << describe(ran);
  std::filesystem::path json_file;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "results"))
    if (entry.path().extension() == ".json") json_file = entry.path();
  nlohmann::json results = nlohmann::json::parse(read_text_file(json_file));
  const std::string hostile = "run\x1b[2J\nFAKE";
  results["provenance"]["run_id"] = hostile;
  for (nlohmann::json& row : results["rows"]) row["run_id"] = hostile;
  std::filesystem::remove_all(dir / "results");
  std::filesystem::create_directories(dir / "hostile");
  std::ofstream(dir / "hostile" / "run.json") << results.dump();
  const std::string store = (dir / "history.sqlite").string();
  const testing::ProcessResult ingest =
      run_process(directly({"history", "ingest", (dir / "hostile").string(), "--store", store}));
  // The rows' run ids are read without the control characters while the provenance keeps them,
  // so the store refuses the file (exit 4); the message that names the run shows it escaped.
  EXPECT_EQ(ingest.exit_code, 4) << describe(ingest);
  EXPECT_THAT(ingest.err, HasSubstr("run\\x1b[2J\\x0aFAKE"));
  EXPECT_EQ(ingest.err.find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace fb
