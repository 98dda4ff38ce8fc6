// Output paths that would lose data: two runs given one results path, --csv equal to --json,
// logs of the same name from different directories imported together, an import into files an
// earlier one wrote, and log names no results file can be named after.

#include "fabricbench_runs.hpp"
#include "common/text_file.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace fb {
namespace {

using ::testing::HasSubstr;
using testing::allow_root;
using testing::describe;
using testing::directly;
using testing::ProcessResult;
using testing::run_process;
using testing::TempDir;

TEST(OutputPaths, CsvEqualToJsonIsRefusedBeforeMeasuring) {
  const TempDir dir;
  const ProcessResult result = run_process(directly({"run", "all_reduce", "-e", "1K", "-n", "2", "--csv", dir / "r.txt",
                                                     "--json", dir / "./r.txt"}),
                                           allow_root);
  EXPECT_EQ(result.exit_code, 2) << describe(result);
  EXPECT_EQ(result.err,
            "fabricbench: error: the CSV and the JSON results would both be " + (dir / "r.txt").string() + "\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "r.txt"));
}

// A second run given the paths of the first (the same job script run twice, or two at once) is
// refused before it measures anything, and the first run's rows stay as they were.
TEST(OutputPaths, ASecondRunIntoTheSameFilesIsRefusedAndTheFirstKept) {
  const TempDir dir;
  const std::vector<std::string> run{"run",   "all_reduce",  "-b",     "1K",          "-e",          "4K",
                                     "-n",    "2",           "-w",     "1",           "--placement", "out-of-place",
                                     "--csv", dir / "r.csv", "--json", dir / "r.json"};
  const ProcessResult first = run_process(directly(run), allow_root);
  ASSERT_EQ(first.exit_code, 0) << describe(first);
  const std::string csv = read_text_file(dir / "r.csv");
  const std::string json = read_text_file(dir / "r.json");
  ASSERT_EQ(read_results_json(dir / "r.json").rows.size(), 3u);

  const ProcessResult second = run_process(directly(run), allow_root);
  EXPECT_EQ(second.exit_code, 2) << describe(second);
  EXPECT_EQ(second.err, "fabricbench: error: " + (dir / "r.json").string() +
                            " exists already: results are never overwritten; remove it or give another path\n");
  EXPECT_EQ(read_text_file(dir / "r.csv"), csv);
  EXPECT_EQ(read_text_file(dir / "r.json"), json);

  // Only the CSV taken: the JSON the refused run claimed first is not left behind.
  std::filesystem::remove(dir / "r.json");
  const ProcessResult third = run_process(directly(run), allow_root);
  EXPECT_EQ(third.exit_code, 2) << describe(third);
  EXPECT_THAT(third.err, HasSubstr((dir / "r.csv").string() + " exists already"));
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
  EXPECT_EQ(read_text_file(dir / "r.csv"), csv);
}

// One directory per node holding logs of the same name is how logs are gathered: each becomes
// its own results files, the second named after its directory, with a warning saying so.
TEST(OutputPaths, ImportedLogsOfTheSameNameFromTwoDirectoriesAreBothKept) {
  const TempDir dir;
  const std::filesystem::path sample = FABRICBENCH_REPORT_SAMPLES_DIR "/all_reduce_perf_2x4.log";
  for (const char* node : {"node01", "node02"}) {
    std::filesystem::create_directories(dir / node);
    std::filesystem::copy_file(sample, dir / node / "all_reduce.log");
  }
  const ProcessResult result =
      run_process(directly({"import", dir / "node01/all_reduce.log", dir / "node02/all_reduce.log", "-o", dir / "out"}),
                  allow_root);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_EQ(result.err, "warning: " + (dir / "node02/all_reduce.log").string() +
                            ": run id nccl-tests-all_reduce is taken by " + (dir / "node01/all_reduce.log").string() +
                            "; written as nccl-tests-all_reduce-node02\n");
  const ResultSet first = read_results_json(dir / "out/nccl-tests-all_reduce.json");
  const ResultSet second = read_results_json(dir / "out/nccl-tests-all_reduce-node02.json");
  EXPECT_EQ(read_results_csv(dir / "out/nccl-tests-all_reduce-node02.csv").rows, second.rows);
  ASSERT_FALSE(first.rows.empty());
  EXPECT_EQ(second.rows.size(), first.rows.size());
  EXPECT_EQ(second.provenance.run_id, "nccl-tests-all_reduce-node02");
  for (const ResultRow& row : second.rows) EXPECT_EQ(row.run_id, "nccl-tests-all_reduce-node02");
  for (const ResultRow& row : first.rows) EXPECT_EQ(row.run_id, "nccl-tests-all_reduce");
}

// A second import into the directory of the first is refused, whichever of its logs collides, before
// it writes anything: the first import's files stay as they were and the other log is not written.
TEST(OutputPaths, AnImportIntoFilesAnEarlierOneWroteIsRefusedBeforeWritingAny) {
  const TempDir dir;
  const std::filesystem::path sample = FABRICBENCH_REPORT_SAMPLES_DIR "/all_reduce_perf_2x4.log";
  std::filesystem::copy_file(sample, dir / "first.log");
  std::filesystem::copy_file(sample, dir / "second.log");
  const ProcessResult first = run_process(directly({"import", dir / "second.log", "-o", dir / "out"}), allow_root);
  ASSERT_EQ(first.exit_code, 0) << describe(first);
  const std::string json = read_text_file(dir / "out/nccl-tests-second.json");

  const ProcessResult again =
      run_process(directly({"import", dir / "first.log", dir / "second.log", "-o", dir / "out"}), allow_root);
  EXPECT_EQ(again.exit_code, 2) << describe(again);
  EXPECT_EQ(again.err, "fabricbench: error: " + (dir / "out/nccl-tests-second.json").string() +
                           " exists already: results are never overwritten; remove it or give another --output-dir\n");
  EXPECT_EQ(again.out, "");
  EXPECT_FALSE(std::filesystem::exists(dir / "out/nccl-tests-first.json"));
  EXPECT_EQ(read_text_file(dir / "out/nccl-tests-second.json"), json);
}

// A newline in a log's name would split the CSV's row, and a name of 250 characters makes a results
// file name beyond NAME_MAX: the run id keeps the name's letters, digits and "._+-", '_' for the
// rest, cut to 200 bytes; what is printed shows the newline escaped. Both files read back.
TEST(OutputPaths, LogNamesNoResultsFileCanBeNamedAfterGiveARunIdThatCan) {
  const TempDir dir;
  const std::filesystem::path sample = FABRICBENCH_REPORT_SAMPLES_DIR "/all_reduce_perf_2x4.log";
  const std::filesystem::path with_newline = dir / "a\nb c.log";
  const std::filesystem::path long_name = dir / (std::string(250 - 4, 'x') + ".log");
  std::filesystem::copy_file(sample, with_newline);
  std::filesystem::copy_file(sample, long_name);
  const ProcessResult result =
      run_process(directly({"import", with_newline, long_name, "-o", dir / "out"}), allow_root);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("# " + (dir / "a").string() + "\\x0ab c.log: "));
  EXPECT_THAT(result.out, HasSubstr("-> " + (dir / "out/nccl-tests-a_b_c").string() + ".json\n"));

  const std::string long_id = ("nccl-tests-" + std::string(250 - 4, 'x')).substr(0, 200);
  for (const std::string& id : {std::string("nccl-tests-a_b_c"), long_id}) {
    const ResultSet json = read_results_json(dir / "out" / (id + ".json"));
    EXPECT_EQ(json.provenance.run_id, id);
    ASSERT_FALSE(json.rows.empty());
    for (const ResultRow& row : json.rows) EXPECT_EQ(row.run_id, id);
    EXPECT_EQ(read_results_csv(dir / "out" / (id + ".csv")).rows, json.rows);
  }
}

}  // namespace
}  // namespace fb
