// Results files no run can write, given to the commands that load results: each ends with the
// input exit code (4) and one line naming the file and what is wrong, never a crash; text that
// would drive the terminal is not printed.

#include "fabricbench_runs.hpp"
#include "common/text_file.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace fb {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::allow_root;
using testing::describe;
using testing::directly;
using testing::ProcessResult;
using testing::run_process;
using testing::TempDir;

const std::string results_sample = FB_REPORT_SAMPLES_DIR "/mpi_all_reduce_4ranks.json";

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string with_provenance_value(const std::string& json, const std::string& value) {
  const std::string key = "\"provenance\": {";
  std::string changed = json;
  changed.replace(changed.find(key), key.size(), "\"deep\": " + value + ",\n \"provenance\": {");
  return changed;
}

// 100,000 nested levels crashed report, compare, diagnose and accept with SIGSEGV.
TEST(HostileResults, JsonNestedOneHundredThousandLevelsExitsFour) {
  const TempDir dir;
  const std::filesystem::path deep = dir / "deep.json";
  write(deep,
        with_provenance_value(read_text_file(results_sample), std::string(100000, '[') + std::string(100000, ']')));
  for (const std::vector<std::string>& command : {std::vector<std::string>{"compare", results_sample, deep.string()},
                                                  std::vector<std::string>{"diagnose", "--results", deep.string()}}) {
    const ProcessResult result = run_process(directly(command), allow_root);
    EXPECT_EQ(result.exit_code, 4) << describe(result);
    EXPECT_EQ(result.err, "fabricbench: error: " + deep.string() + ": JSON nested deeper than 64 levels\n");
  }
}

TEST(HostileResults, ImpossibleRowsExitFourNamingFileRowAndField) {
  const TempDir dir;
  const std::string sample = read_text_file(results_sample);
  const std::vector<std::pair<std::string, std::string>> damage{{"\"iterations\": ", "-1"},
                                                                {"\"nranks\": ", "0"},
                                                                {"\"time_median_us\": ", "5e-324"}};
  for (const auto& [key, value] : damage) {
    std::string text = sample;
    const std::size_t at = text.find(key, text.find("\"rows\"")) + key.size();
    text.replace(at, text.find_first_of(",\n", at) - at, value);
    write(dir / "bad.json", text);
    const ProcessResult result =
        run_process(directly({"compare", results_sample, (dir / "bad.json").string()}), allow_root);
    EXPECT_EQ(result.exit_code, 4) << describe(result);
    EXPECT_THAT(result.err, HasSubstr((dir / "bad.json").string() + ": rows[0]: " + key.substr(1, key.size() - 4) +
                                      " is " + value));
  }
}

// compare printed op names raw: an ESC sequence in one cleared the user's terminal.
TEST(HostileResults, EscapeSequencesInOpNamesAreNotPrinted) {
  const TempDir dir;
  ResultSet results = read_results_json(results_sample);
  ResultSet other = results;
  for (ResultSet* set : {&results, &other})
    for (ResultRow& row : set->rows) row.op = "all_\x1b[2J\x1b]0;owned\x07reduce";
  write(dir / "a.json", results_to_json(results));
  write(dir / "b.json", results_to_json(other));
  const ProcessResult result =
      run_process(directly({"compare", (dir / "a.json").string(), (dir / "b.json").string()}), allow_root);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("all_[2J]0;ownedreduce"));
  EXPECT_THAT(result.out + result.err, Not(HasSubstr("\x1b")));
  EXPECT_THAT(result.out + result.err, Not(HasSubstr("\x07")));
}

// A mistyped command read as a missing one ("A subcommand is required"), a mistyped flag got no
// suggestion.
TEST(CommandLineSpelling, AMistypedCommandOrFlagGetsTheNameItWasMeantToBe) {
  ProcessResult result = run_process(directly({"reprot", results_sample}), allow_root);
  EXPECT_EQ(result.exit_code, 2) << describe(result);
  EXPECT_EQ(result.err,
            "fabricbench: error: unknown command 'reprot'; did you mean 'report'? (see fabricbench --help)\n");
  result = run_process(directly({"compare", results_sample, results_sample, "--csvv", "x.csv"}), allow_root);
  EXPECT_EQ(result.exit_code, 2) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("did you mean '--csv' for '--csvv'?"));
  EXPECT_FALSE(std::filesystem::exists("x.csv"));
}

}  // namespace
}  // namespace fb
