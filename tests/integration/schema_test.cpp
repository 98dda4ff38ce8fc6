// Every JSON file fabricbench writes, held against its published schema (docs/schemas/): the real
// binary writes it from real inputs, python3-jsonschema's draft 2020-12 validator checks it.

#include "fabricbench_runs.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace fb::testing {
namespace {

const std::filesystem::path corpus_dir = FB_CORPUS_LOGS_DIR;
const std::filesystem::path schemas_dir = FABRICBENCH_SCHEMAS_DIR;

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

}  // namespace
}  // namespace fb::testing
