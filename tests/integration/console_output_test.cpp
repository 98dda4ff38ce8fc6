// The console of `fabricbench run` under a real mpirun, held against the results file the same run
// wrote: the parameter lines name the flags in effect, and the mean and the iteration count of
// every printed row are the row's own, also where -n auto chose the count size by size.

#include "common/op_catalog.hpp"
#include "fabricbench_runs.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace fb {
namespace {

using ::testing::HasSubstr;
using testing::allow_root;
using testing::describe;
using testing::fields_of;
using testing::lines_of;
using testing::ProcessResult;
using testing::run_process;
using testing::TempDir;
using testing::under_mpirun;
using testing::validate_against_schema;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// One placement group of a printed size line: nccl-tests' time, then the extras.
struct PrintedGroup {
  double time_us = 0;
  double mean_us = 0;
  int iterations = 0;
};

using RowKey = std::tuple<std::string, std::uint64_t, bool>;  // op, bytes, in place

// The data lines of every op table: size, then per placement group its time (nccl-tests' group
// of 4 fields) and its mean and iterations (the 3rd and 4th of the 4 extra fields after every
// group). `placements` gives each op's groups in order (false: out-of-place).
std::map<RowKey, PrintedGroup> printed_groups(const std::string& out,
                                              const std::map<std::string, std::vector<bool>>& placements) {
  std::map<RowKey, PrintedGroup> printed;
  std::string op;
  for (const std::string& line : lines_of(out)) {
    const auto fields = fields_of(line);
    if (fields.empty()) continue;
    if (fields[0] == "#") {
      if (fields.size() >= 2 && find_op(fields[1])) op = fields[1];
      continue;
    }
    const std::vector<bool>& groups = placements.at(op);
    EXPECT_EQ(fields.size(), 5 + 8 * groups.size()) << line;
    if (fields.size() != 5 + 8 * groups.size()) continue;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const std::size_t extras = 5 + 4 * groups.size() + 4 * g;
      printed[{op, std::stoull(fields[0]), groups[g]}] = {std::stod(fields[5 + 4 * g]), std::stod(fields[extras + 2]),
                                                          std::stoi(fields[extras + 3])};
    }
  }
  return printed;
}

// The console prints 3 significant digits at least: the file's value rounded that way.
void expect_printed(double printed, double exact, const std::string& what) {
  EXPECT_NEAR(printed, exact, 0.005 * exact + 0.005) << what;
}

TEST(ConsoleOutput, AutoIterationsPrintEachRowsCountAndMeanAsTheResultsFileHasThem) {
  const TempDir dir;
  const ProcessResult result =
      run_process(under_mpirun(3, FABRICBENCH_BINARY,
                               {"run",        "all_reduce",   "latency",     "-e",         "256", "-n",    "auto",
                                "--min-time", "0.01",         "--max-iters", "3000",       "-w",  "2",     "-d",
                                "int32",      "-o",           "max",         "--src",      "0",   "--dst", "2",
                                "--json",     dir / "r.json", "--csv",       dir / "r.csv"}),
                  allow_root);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const ResultSet results = read_results_json(dir / "r.json");
  ASSERT_EQ(results.rows.size(), 6u * 2 + 6u);  // 8 B to 256 B: all_reduce in both placements, latency
  // The file is what its published schema says; a row that breaks it is caught.
  const ProcessResult valid = validate_against_schema(dir / "r.json", FABRICBENCH_SCHEMAS_DIR "/results.schema.json");
  EXPECT_EQ(valid.exit_code, 0) << describe(valid);
  std::string broken = read_text(dir / "r.json");
  broken.replace(broken.find("\"iterations\": "), 14, "\"iterations\": -");
  std::ofstream(dir / "broken.json") << broken;
  const ProcessResult invalid =
      validate_against_schema(dir / "broken.json", FABRICBENCH_SCHEMAS_DIR "/results.schema.json");
  EXPECT_EQ(invalid.exit_code, 1) << describe(invalid);
  EXPECT_THAT(invalid.out, HasSubstr("rows/0/iterations"));

  // nccl-tests' parameter line, then the ops with what else decides their numbers.
  const auto lines = lines_of(result.out);
  const auto parameters =
      std::find_if(lines.begin(), lines.end(), [](const std::string& line) { return line.starts_with("# nRanks"); });
  ASSERT_NE(parameters, lines.end()) << result.out;
  ASSERT_NE(parameters + 1, lines.end());
  EXPECT_EQ(*parameters,
            "# nRanks 3 minBytes 8 maxBytes 256 step: 2(factor) warmup iters: 2 iters: auto(0.01s,20..3000) "
            "validation: 1 graph: 0");
  EXPECT_EQ(*(parameters + 1), "# ops: all_reduce,latency datatype: int32 redop: max "
                               "placement: out-of-place,in-place(all_reduce) out-of-place(latency) src: 0 dst: 2");
  // The provenance comes first and the tables after.
  EXPECT_LT(std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.starts_with("# command:"); }),
            parameters);

  const std::map<RowKey, PrintedGroup> printed =
      printed_groups(result.out, {{"all_reduce", {false, true}}, {"latency", {false}}});
  ASSERT_EQ(printed.size(), results.rows.size()) << result.out;
  for (const ResultRow& row : results.rows) {
    const std::string what = row.op + " " + std::to_string(row.bytes) + (row.in_place ? " in-place" : "");
    const auto group = printed.find({row.op, row.bytes, row.in_place});
    ASSERT_NE(group, printed.end()) << what;
    EXPECT_EQ(row.nranks, 3) << what;
    // The count -n auto chose for this very row, within the bounds the parameter line gives.
    EXPECT_EQ(group->second.iterations, row.iterations) << what;
    EXPECT_GE(row.iterations, 20) << what;
    EXPECT_LE(row.iterations, 3000) << what;
    ASSERT_TRUE(row.time_mean_us.has_value()) << what;
    expect_printed(group->second.mean_us, *row.time_mean_us, what + " mean");
    expect_printed(group->second.time_us, row.time_median_us, what + " median");
  }

  // The latency summary gives OSU's mean and the count behind it, for the smallest size.
  const auto smallest = std::find_if(results.rows.begin(), results.rows.end(),
                                     [](const ResultRow& row) { return row.op == "latency" && row.bytes == 8; });
  ASSERT_NE(smallest, results.rows.end());
  const auto summary = std::find_if(lines.begin(), lines.end(),
                                    [](const std::string& line) { return line.starts_with("# latency: median time"); });
  ASSERT_NE(summary, lines.end()) << result.out;
  EXPECT_THAT(*summary, HasSubstr(" over " + std::to_string(smallest->iterations) + " iterations at 8 bytes"));
  const auto summary_fields = fields_of(*summary);
  const auto mean = std::find(summary_fields.begin(), summary_fields.end(), "mean");
  ASSERT_NE(mean, summary_fields.end()) << *summary;
  expect_printed(std::stod(*(mean + 1)), *smallest->time_mean_us, "summary mean");
}

TEST(ConsoleOutput, AFixedCountIsTheParameterLinesAndEveryRows) {
  const TempDir dir;
  const ProcessResult result =
      run_process(under_mpirun(2, FABRICBENCH_BINARY,
                               {"run",         "reduce",   "-b",     "16",           "-e",    "64",         "-n",
                                "7",           "-w",       "0",      "-r",           "1",     "-c",         "0",
                                "--placement", "in-place", "--json", dir / "r.json", "--csv", dir / "r.csv"}),
                  allow_root);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const ResultSet results = read_results_json(dir / "r.json");
  ASSERT_EQ(results.rows.size(), 3u);  // 16, 32, 64 bytes in place
  const auto lines = lines_of(result.out);
  EXPECT_THAT(lines, ::testing::Contains("# nRanks 2 minBytes 16 maxBytes 64 step: 2(factor) warmup iters: 0 iters: 7 "
                                         "validation: 0 graph: 0"))
      << result.out;
  EXPECT_THAT(lines, ::testing::Contains("# ops: reduce datatype: float redop: sum root: 1 placement: in-place"));
  const std::map<RowKey, PrintedGroup> printed = printed_groups(result.out, {{"reduce", {true}}});
  ASSERT_EQ(printed.size(), 3u) << result.out;
  for (const ResultRow& row : results.rows) {
    EXPECT_EQ(row.iterations, 7);
    EXPECT_EQ(printed.at({row.op, row.bytes, row.in_place}).iterations, 7) << row.bytes;
  }
}

}  // namespace
}  // namespace fb
