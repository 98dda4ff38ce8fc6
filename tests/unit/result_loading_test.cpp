// Loading many results files on worker threads (results/result_loading.hpp): the sets come in load
// order whatever thread read each, the error is the first malformed file in that order, and a
// consumer that stops half-way stops the reading without a hang.

#include "common/errors.hpp"
#include "results/atomic_file.hpp"
#include "results/result_loading.hpp"
#include "support/temp_dir.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace fb {
namespace {

using ::testing::HasSubstr;

// `count` one-row runs named run0000.json.. in `dir`, each with its own run id and size.
void write_runs(const std::filesystem::path& dir, int count) {
  for (int i = 0; i < count; ++i) {
    ResultSet results;
    results.provenance.run_id = fmt::format("run{:04}", i);
    ResultRow row;
    row.run_id = results.provenance.run_id;
    row.backend = "mpi";
    row.op = "all_reduce";
    row.nranks = 2;
    row.bytes = static_cast<std::uint64_t>(i + 1) * 8;
    results.rows.push_back(row);
    write_file_atomically(dir / (results.provenance.run_id + ".json"), results_to_json(results));
  }
}

TEST(ResultLoading, ManyFilesComeBackInLoadOrder) {
  const testing::TempDir dir;
  write_runs(dir.path(), 300);
  const std::vector<LoadedResults> sets = load_results({dir.path()});
  ASSERT_EQ(sets.size(), 300U);
  for (std::size_t i = 0; i < sets.size(); ++i) {
    EXPECT_EQ(sets[i].label, fmt::format("run{:04}", i));
    ASSERT_EQ(sets[i].results.rows.size(), 1U);
    EXPECT_EQ(sets[i].results.rows[0].bytes, (i + 1) * 8);
  }
}

TEST(ResultLoading, TheErrorIsTheFirstMalformedFileInLoadOrder) {
  const testing::TempDir dir;
  write_runs(dir.path(), 300);
  // Two broken files; the later one is short, so it may well be read first.
  write_file_atomically(dir / "run0100.json", std::string(200'000, ' ') + "{\"schema\": ");
  write_file_atomically(dir / "run0200.json", "{");
  for (int attempt = 0; attempt < 5; ++attempt) {
    try {
      load_results({dir.path()});
      ADD_FAILURE() << "two malformed files loaded";
    } catch (const InputError& error) { EXPECT_THAT(error.what(), HasSubstr("run0100.json")) << attempt; }
  }
  // Handed over one at a time: every set before the broken one reaches the consumer first.
  std::vector<std::string> used;
  EXPECT_THROW(for_each_result_set({dir.path()}, [&](LoadedResults&& set) { used.push_back(set.label); }), InputError);
  EXPECT_EQ(used.size(), 100U);
}

TEST(ResultLoading, AConsumerThatStopsEndsTheReading) {
  const testing::TempDir dir;
  write_runs(dir.path(), 300);
  int used = 0;
  EXPECT_THROW(for_each_result_set({dir.path()},
                                   [&](LoadedResults&&) {
                                     if (++used == 5) throw std::runtime_error("refused");
                                   }),
               std::runtime_error);
  EXPECT_EQ(used, 5);
}

}  // namespace
}  // namespace fb
