// Every JSON file fabricbench writes, held against its published schema (docs/schemas/): the real
// binary writes it from real inputs, python3-jsonschema's draft 2020-12 validator checks it.

#include "fabricbench_runs.hpp"
#include "results/results_io.hpp"
#include "support/nightly_runs.hpp"
#include "support/temp_dir.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace fb::testing {
namespace {

const std::filesystem::path corpus_dir = FB_CORPUS_LOGS_DIR;
const std::filesystem::path schemas_dir = FABRICBENCH_SCHEMAS_DIR;
const std::filesystem::path topology_corpus_dir = FB_CORPUS_TOPOLOGY_DIR;

ProcessResult fabricbench(const std::vector<std::string>& args) {
  std::vector<std::string> argv{FABRICBENCH_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

// Every log of the corpus `import` takes (nccl-tests, rccl-tests, OSU, perftest, Google Benchmark,
// each in the shapes the corpus holds) becomes a results file of the published schema.
TEST(Schemas, EveryResultsFileImportedFromTheCorpusIsValid) {
  const TempDir dir;
  std::size_t imported = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus_dir)) {
    if (entry.path().filename() == "SOURCES.md") continue;
    const std::filesystem::path out = dir / entry.path().filename().string();
    // A log that does not say its rank count (OSU collectives) is imported as its user would.
    ProcessResult result = fabricbench({"import", entry.path().string(), "-o", out.string()});
    // A run that failed before its table is refused naming the failure, as bad input (exit 4).
    if (entry.path().filename().string().find("failed_run") != std::string::npos) {
      EXPECT_EQ(result.exit_code, 4) << entry.path() << "\n" << describe(result);
      EXPECT_NE(result.err.find("Test CUDA failure"), std::string::npos) << describe(result);
      continue;
    }
    if (result.exit_code != 0)
      result = fabricbench({"import", entry.path().string(), "-o", out.string(), "--ranks", "4"});
    ASSERT_EQ(result.exit_code, 0) << entry.path() << "\n" << describe(result);
    for (const auto& written : std::filesystem::directory_iterator(out)) {
      if (written.path().extension() != ".json") continue;
      ++imported;
      const ProcessResult valid = validate_against_schema(written.path(), schemas_dir / "results.schema.json");
      EXPECT_EQ(valid.exit_code, 0) << written.path() << "\n" << describe(valid);
    }
  }
  EXPECT_GE(imported, 24u);
}

std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir, const std::string& extension = "") {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.is_regular_file() && (extension.empty() || entry.path().extension() == extension))
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

void expect_valid(const std::filesystem::path& json, const std::string& schema, const std::string& what) {
  const ProcessResult valid = validate_against_schema(json, schemas_dir / schema);
  EXPECT_EQ(valid.exit_code, 0) << what << "\n" << describe(valid);
}

// Every fleet of the corpus (a NIC missing, an NVLink down, a GPU off the bus with its renumbering,
// certain and uncertain) and a uniform one.
TEST(Schemas, TopoDiffOfEveryCorpusFleetIsValid) {
  const TempDir dir;
  std::vector<std::filesystem::path> fleets;
  for (const auto& entry : std::filesystem::directory_iterator(topology_corpus_dir / "fleet")) fleets.push_back(entry);
  ASSERT_GE(fleets.size(), 4u);
  for (const std::filesystem::path& fleet : fleets) {
    std::vector<std::string> args{"topo", "diff"};
    for (const std::filesystem::path& dump : files_in(fleet)) args.push_back(dump.string());
    args.insert(args.end(), {"--json", (dir / "diff.json").string()});
    const ProcessResult result = fabricbench(args);
    ASSERT_EQ(result.exit_code, 7) << fleet << "\n" << describe(result);
    expect_valid(dir / "diff.json", "topo-diff.schema.json", fleet.string());
  }
  const std::filesystem::path node = topology_corpus_dir / "topo_m" / "tpgds-aihub0007.txt";
  for (const char* name : {"a.txt", "b.txt", "c.txt"}) std::filesystem::copy_file(node, dir / name);
  const ProcessResult uniform = fabricbench({"topo", "diff", (dir / "a.txt").string(), (dir / "b.txt").string(),
                                             (dir / "c.txt").string(), "--json", (dir / "uniform.json").string()});
  ASSERT_EQ(uniform.exit_code, 0) << describe(uniform);
  expect_valid(dir / "uniform.json", "topo-diff.schema.json", "a uniform fleet");
}

// The fabrics of the corpus (ibnetdiscover and ibsim dumps, from 2 switches to a 128-node
// SuperPOD) and the cluster specs of docs/examples, under every traffic pattern.
TEST(Schemas, TopoAnalyzeOfEveryCorpusFabricAndExampleIsValid) {
  const TempDir dir;
  std::vector<std::filesystem::path> fabrics = files_in(topology_corpus_dir / "ibnetdiscover", ".txt");
  const std::vector<std::filesystem::path> ibsim = files_in(topology_corpus_dir / "ibnetdiscover", ".net");
  const std::vector<std::filesystem::path> specs = files_in(FB_EXAMPLES_DIR, ".yaml");
  fabrics.insert(fabrics.end(), ibsim.begin(), ibsim.end());
  fabrics.insert(fabrics.end(), specs.begin(), specs.end());
  ASSERT_GE(fabrics.size(), 12u);
  for (const std::filesystem::path& fabric : fabrics)
    for (const char* pattern : {"all_to_all", "ring", "leaf_to_leaf", "bisection"}) {
      const ProcessResult result = fabricbench(
          {"topo", "analyze", fabric.string(), "--pattern", pattern, "--json", (dir / "analysis.json").string()});
      ASSERT_EQ(result.exit_code, 0) << fabric << " " << pattern << "\n" << describe(result);
      expect_valid(dir / "analysis.json", "topo-analyze.schema.json", fabric.string() + " " + pattern);
      std::filesystem::remove(dir / "analysis.json");
    }
}

// A prediction is a results file (backend "model") of the results schema.
TEST(Schemas, TopoPredictionsAreResultsFiles) {
  const TempDir dir;
  for (const std::filesystem::path& spec : files_in(FB_EXAMPLES_DIR, ".yaml"))
    for (const char* op : {"all_reduce", "alltoall", "sendrecv"}) {
      const std::filesystem::path out = dir / (spec.stem().string() + "-" + op + ".json");
      const ProcessResult result = fabricbench(
          {"topo", "predict", "--spec", spec.string(), "--op", op, "-b", "1M", "-e", "1G", "--json", out.string()});
      ASSERT_EQ(result.exit_code, 0) << spec << " " << op << "\n" << describe(result);
      expect_valid(out, "results.schema.json", spec.string() + " " + op);
    }
}

// The three things `history --json` writes: the runs, one series with its change, every series
// judged by `history drift`.
TEST(Schemas, HistoryRunsSeriesAndDriftAreValid) {
  const TempDir dir;
  write_nightly_runs(dir / "nights",
                     {.month = "2026-10", .time_of_day = "03:00:00", .bytes = 1 << 20, .healthy_gbps = 10.0});
  const std::string store = (dir / "history.sqlite").string();
  const ProcessResult ingest = fabricbench({"history", "ingest", (dir / "nights").string(), "--store", store});
  ASSERT_EQ(ingest.exit_code, 0) << describe(ingest);
  const ProcessResult runs = fabricbench({"history", "--store", store, "--json", (dir / "runs.json").string()});
  ASSERT_EQ(runs.exit_code, 0) << describe(runs);
  expect_valid(dir / "runs.json", "history.schema.json", "history");
  const ProcessResult series =
      fabricbench({"history", "--store", store, "--host", "node3", "--json", (dir / "series.json").string()});
  ASSERT_EQ(series.exit_code, 0) << describe(series);
  EXPECT_THAT(series.out, ::testing::HasSubstr("change began")) << series.out;
  expect_valid(dir / "series.json", "history.schema.json", "history --host node3");
  const ProcessResult drift =
      fabricbench({"history", "--store", store, "--json", (dir / "drift.json").string(), "drift"});
  ASSERT_EQ(drift.exit_code, 0) << describe(drift);
  EXPECT_THAT(drift.out, ::testing::HasSubstr("host node3")) << drift.out;
  expect_valid(dir / "drift.json", "history.schema.json", "history drift");
}

}  // namespace
}  // namespace fb::testing
