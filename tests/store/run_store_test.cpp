// The run store on a real SQLite file: a run read back equals the run recorded, field by field;
// recording again changes nothing, a grown run replaces itself, another run with the same id is
// refused; the schema is migrated once and a newer store is refused; trends are per-run medians.

#include "common/errors.hpp"
#include "store/database.hpp"
#include "store/run_store.hpp"
#include "store/schema.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace fb::store {
namespace {

// A row with every field of the results format set to a value no default has, so a column the
// store forgets (or reads back rounded) fails the comparison.
ResultRow full_row(const std::string& run_id, int index) {
  ResultRow row;
  row.run_id = run_id;
  row.backend = "mpi";
  row.op = "pairwise";
  row.dtype = "float";
  row.redop = "none";
  row.root = 3;
  row.in_place = true;
  row.nranks = 8;
  row.nodes = 4;
  row.ranks_per_node = 2;
  row.src_rank = index;
  row.dst_rank = index + 1;
  row.src_host = fmt::format("node{}", index);
  row.dst_host = fmt::format("node{}", index + 1);
  row.src_device = "host";
  row.dst_device = "GPU3";
  row.round = 7;
  row.concurrent_flows = 4;
  row.repetition = 2;
  row.bytes = 4'294'967'296ULL + static_cast<std::uint64_t>(index);
  row.count = 1'073'741'824ULL;
  row.iterations = 20;
  row.time_min_us = 0.1 + index;  // not exact in binary: must round-trip all 17 digits
  row.time_median_us = 1.0 / 3.0 + index;
  row.time_p99_us = 2.718281828459045 + index;
  row.time_max_us = 1e-300;
  row.time_cv = 0.123456789012345678;
  row.time_mean_us = 0.7 + index;
  row.unreported_statistics = "time_p99_us time_cv";
  row.algbw_gbps = 12.345678901234567;
  row.busbw_gbps = 98.76543210987654;
  row.wrong = 18'446'744'073'709ULL;
  row.timestamp = "2026-11-26T19:00:00.123456Z";
  row.expected_busbw_gbps = 100.0 / 7.0;
  row.expected_time_us = 5e-7;
  row.efficiency_pct = 91.25;
  row.model_algorithm = "ring";
  row.model_protocol = "simple";
  row.model_channels = 16;
  row.model_limit = "node1/eth0 <-> leaf0 (\"quoted\", 'single')";
  return row;
}

ResultSet full_run(const std::string& run_id, std::size_t rows) {
  ResultSet results;
  results.provenance.run_id = run_id;
  results.provenance.tool_version = "0.1.0";
  results.provenance.git_revision = "abc123";
  results.provenance.start_time = "2026-11-26T19:00:00Z";
  results.provenance.command_line = "fabricbench run pairwise";
  results.provenance.backend = "mpi";
  results.provenance.nranks = 8;
  results.provenance.nodes = 4;
  results.provenance.ranks_per_node = 2;
  results.provenance.rank_hosts = {"node0", "node0", "node1", "node1", "node2", "node2", "node3", "node3"};
  results.provenance.environment = {{"SLURM_JOB_ID", "4242"}, {"NCCL_DEBUG", "INFO"}};
  results.provenance.libraries = {{"Open MPI", "4.1.4"}};
  for (std::size_t i = 0; i < rows; ++i) results.rows.push_back(full_row(run_id, static_cast<int>(i)));
  return results;
}

TEST(RunStore, ReadsBackEveryFieldOfEveryRowAndTheProvenance) {
  testing::TempDir dir;
  RunStore store((dir / "history.sqlite").string());
  const ResultSet recorded = full_run("run1", 3);
  EXPECT_EQ(store.record(recorded, "run1.json"), RecordOutcome::added);
  const std::optional<ResultSet> read = store.run("run1");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->provenance, recorded.provenance);
  ASSERT_EQ(read->rows.size(), 3U);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(read->rows[i], recorded.rows[i]) << "row " << i;
  const std::vector<StoredRun> runs = store.runs();
  ASSERT_EQ(runs.size(), 1U);
  EXPECT_EQ(runs[0].slurm_job_id, "4242");
  EXPECT_EQ(runs[0].rows, 3U);
  EXPECT_EQ(runs[0].hosts, "node0 (ranks 0-1), node1 (ranks 2-3), node2 (ranks 4-5), node3 (ranks 6-7)");
  EXPECT_FALSE(store.run("run2"));
}

TEST(RunStore, RecordingTheSameRunAgainChangesNothingAndAGrownRunReplacesItself) {
  testing::TempDir dir;
  const std::string path = (dir / "history.sqlite").string();
  {
    RunStore store(path);
    EXPECT_EQ(store.record(full_run("soak", 2), "a.json"), RecordOutcome::added);
    EXPECT_EQ(store.record(full_run("soak", 2), "a.json"), RecordOutcome::unchanged);
  }
  RunStore reopened(path);
  EXPECT_EQ(reopened.record(full_run("soak", 5), "a.json"), RecordOutcome::updated);
  EXPECT_EQ(reopened.run("soak")->rows.size(), 5U);
  EXPECT_EQ(reopened.runs().size(), 1U);
}

TEST(RunStore, RefusesAnotherRunUnderATakenIdAndKeepsTheFirst) {
  testing::TempDir dir;
  RunStore store((dir / "history.sqlite").string());
  store.record(full_run("nccl_allreduce", 2), "week1/nccl_allreduce.json");
  ResultSet other = full_run("nccl_allreduce", 4);
  other.provenance.start_time = "2026-12-03T19:00:00Z";
  try {
    store.record(other, "week2/nccl_allreduce.json");
    FAIL() << "a different run under a taken id was recorded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("taken in the store by another run (from week1/nccl_allreduce.json"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(store.run("nccl_allreduce")->rows.size(), 2U);
}

TEST(RunStore, AFailedRecordLeavesNothingBehind) {
  testing::TempDir dir;
  RunStore store((dir / "history.sqlite").string());
  ResultSet bad = full_run("mixed", 3);
  bad.rows[2].run_id = "other";
  EXPECT_THROW(store.record(bad, "mixed.json"), InputError);
  EXPECT_TRUE(store.runs().empty());
  EXPECT_EQ(store.record(full_run("mixed", 3), "mixed.json"), RecordOutcome::added);
}

TEST(RunStoreSchema, IsMigratedOnceAndANewerStoreIsRefused) {
  testing::TempDir dir;
  const std::string path = (dir / "history.sqlite").string();
  { RunStore store(path); }
  {
    RunStore store(path);
    EXPECT_EQ(store.schema_version(), newest_schema_version());
  }
  const std::unique_ptr<Database> database = open_sqlite(path);
  EXPECT_EQ(database->query("SELECT COUNT(*) FROM schema_migrations")[0][0], std::to_string(newest_schema_version()));
  database->query("INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, 'future', 'now')",
                  {std::to_string(newest_schema_version() + 1)});
  try {
    RunStore refused(path);
    FAIL() << "a store of a newer schema was opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("newer than this fabricbench knows"), std::string::npos) << e.what();
  }
}

ResultSet collective_run(const std::string& run_id, const std::string& start, std::vector<double> busbws, int nranks) {
  ResultSet results;
  results.provenance.run_id = run_id;
  results.provenance.start_time = start;
  for (std::size_t i = 0; i < busbws.size(); ++i) {
    ResultRow row;
    row.run_id = run_id;
    row.op = "all_reduce";
    row.nranks = nranks;
    row.bytes = 1 << 20;
    row.in_place = i % 2 == 1;
    row.busbw_gbps = busbws[i];
    row.algbw_gbps = busbws[i] / 2;
    row.time_median_us = 100.0 / busbws[i];
    results.rows.push_back(row);
  }
  return results;
}

TEST(RunStoreTrend, OnePointPerRunTheMedianOfItsRowsOldestFirstAtTheUsualRankCount) {
  testing::TempDir dir;
  RunStore store((dir / "history.sqlite").string());
  store.record(collective_run("b", "2026-11-02T00:00:00Z", {10, 12, 30}, 2), "b");
  store.record(collective_run("a", "2026-11-01T00:00:00Z", {8, 9}, 2), "a");
  store.record(collective_run("c", "2026-11-03T00:00:00Z", {100}, 16), "c");  // another rank count
  const Trend trend = store.trend({.op = "all_reduce"});
  EXPECT_EQ(trend.query.bytes, 1U << 20);
  EXPECT_EQ(trend.query.nranks, 2);
  EXPECT_TRUE(trend.busbw);
  ASSERT_EQ(trend.points.size(), 2U);
  EXPECT_EQ(trend.points[0].run_id, "a");
  EXPECT_DOUBLE_EQ(*trend.points[0].bandwidth_gbps, 8.5);
  EXPECT_EQ(trend.points[1].run_id, "b");
  EXPECT_DOUBLE_EQ(*trend.points[1].bandwidth_gbps, 12);
  EXPECT_DOUBLE_EQ(trend.points[1].time_us, 100.0 / 12);
  EXPECT_EQ(store.trend({.op = "all_reduce", .nranks = 16}).points.size(), 1U);
  EXPECT_THROW(store.trend({.op = "all_gather"}), InputError);
}

TEST(RunStoreTrend, AHostSeriesTakesTheHostsPairRowsInEitherDirection) {
  testing::TempDir dir;
  RunStore store((dir / "history.sqlite").string());
  store.record(full_run("run1", 3), "run1");  // pairs node0->node1, node1->node2, node2->node3 at 4 GiB + i
  // node1's rows are node0->node1 (4 GiB) and node1->node2 (4 GiB + 1): the largest size is the second.
  const Trend host = store.trend({.host = "node1"});
  EXPECT_EQ(host.query.op, "pairwise");
  EXPECT_EQ(host.query.bytes, 4'294'967'297ULL);
  ASSERT_EQ(host.points.size(), 1U);
  EXPECT_EQ(host.points[0].rows, 1U);
  const Trend pair = store.trend({.bytes = 4'294'967'296ULL, .host = "node1", .peer = "node0"});
  ASSERT_EQ(pair.points.size(), 1U);
  EXPECT_DOUBLE_EQ(*pair.points[0].efficiency_pct, 91.25);
  const SeriesCatalog catalog = store.catalog();
  EXPECT_EQ(catalog.hosts.size(), 4U);
  EXPECT_EQ(catalog.pairs.size(), 3U);
  EXPECT_TRUE(catalog.collectives.empty());
}

// A run on one host (two GPUs of node7: latency and bw between them) is a series of that host, one
// per op, and not one between hosts.
TEST(RunStoreTrend, RunsInsideOneHostAreThatHostsSeriesOnePerOp) {
  testing::TempDir dir;
  RunStore store((dir / "history.sqlite").string());
  for (int run = 0; run < 2; ++run) {
    ResultSet results;
    results.provenance.run_id = fmt::format("local{}", run);
    results.provenance.start_time = fmt::format("2026-11-0{}T00:00:00Z", run + 1);
    for (const std::string op : {"latency", "bw"}) {
      ResultRow row;
      row.run_id = results.provenance.run_id;
      row.op = op;
      row.nranks = 2;
      row.src_host = row.dst_host = "node7";
      row.bytes = op == "bw" ? 1 << 22 : 8;
      row.algbw_gbps = op == "bw" ? 40.0 + run : 0.01;
      row.time_median_us = op == "bw" ? 100.0 : 2.5 + run;
      results.rows.push_back(row);
    }
    store.record(results, results.provenance.run_id);
  }
  const SeriesCatalog catalog = store.catalog();
  EXPECT_TRUE(catalog.hosts.empty());
  EXPECT_TRUE(catalog.pairs.empty());
  ASSERT_EQ(catalog.within_hosts.size(), 2U);
  EXPECT_EQ(catalog.within_hosts[0].op, "bw");
  EXPECT_EQ(catalog.within_hosts[1].op, "latency");
  const Trend latency = store.trend(catalog.within_hosts[1]);
  EXPECT_TRUE(latency.latency);
  ASSERT_EQ(latency.points.size(), 2U);
  EXPECT_DOUBLE_EQ(latency.points[1].time_us, 3.5);
  const Trend bw = store.trend(catalog.within_hosts[0]);
  EXPECT_EQ(bw.query.bytes, 1U << 22);
  EXPECT_DOUBLE_EQ(*bw.points[0].bandwidth_gbps, 40);
  // Between hosts, node7 has no rows.
  EXPECT_THROW(store.trend({.host = "node7"}), InputError);
}

}  // namespace
}  // namespace fb::store
