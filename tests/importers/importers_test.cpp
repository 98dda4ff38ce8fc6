#include "common/errors.hpp"
#include "common/text_file.hpp"
#include "importers/importer_registry.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace fb {
namespace {

using ::testing::HasSubstr;

std::filesystem::path sample(const char* name) { return std::filesystem::path(FB_REPORTS_SAMPLES_DIR) / name; }

ResultSet import_single(const std::filesystem::path& path, ImportOptions options = {}) {
  std::vector<ResultSet> runs = import_log(path, options);
  EXPECT_EQ(runs.size(), 1u);
  return runs.front();
}

std::string import_error(const std::filesystem::path& path, ImportOptions options = {}) {
  try {
    import_log(path, options);
  } catch (const InputError& e) { return e.what(); }
  return "no error";
}

TEST(Importers, EveryFormatRegistersItself) {
  // Also the order in which they are tried: by name, whatever order the linker chose.
  EXPECT_EQ(ImporterRegistry::instance().names(), "gbench, gbench-console, nccl-tests, nccl-tests-json, osu, perftest");
}

// The NCCL a run loaded, as nccl-tests prints it before its table (and NCCL_DEBUG=INFO before
// that): the collective model picks that release's tuner figures from it.
TEST(NcclTestsImporter, TheNcclVersionLineNamesTheLibrary) {
  std::ifstream in(sample("all_reduce_perf_2x4.log"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string before_table = "gpu-node-a1:301122:301122 [0] NCCL INFO Bootstrap : Using ib0:10.4.0.11<0>\n";
  ASSERT_NE(text.find(before_table), std::string::npos);
  text.replace(text.find(before_table), before_table.size(),
               "gpu-node-a1:301122:301122 [0] NCCL INFO NCCL version 2.20.3+cuda12.3\n" + before_table +
                   "NCCL version 2.20.3+cuda12.3\n");
  const testing::TempDir dir;
  std::ofstream(dir / "version.log") << text;
  const ResultSet results = import_single(dir / "version.log");
  EXPECT_EQ(results.provenance.libraries.at("nccl"), "2.20.3+cuda12.3");
  EXPECT_EQ(results.provenance.libraries.at("nccl-library"), "21903");
  EXPECT_EQ(results.rows.size(), 12u);
  EXPECT_FALSE(import_single(sample("all_reduce_perf_2x4.log")).provenance.libraries.contains("nccl"));
}

TEST(NcclTestsImporter, MultiNodeAllReduceLog) {
  const ResultSet results = import_single(sample("all_reduce_perf_2x4.log"), {});
  EXPECT_EQ(results.provenance.backend, "nccl-tests");
  EXPECT_EQ(results.provenance.nranks, 8);
  EXPECT_EQ(results.provenance.nodes, 2);
  EXPECT_EQ(results.provenance.ranks_per_node, 4);
  EXPECT_EQ(results.provenance.rank_hosts.at(3), "gpu-node-a1");
  EXPECT_EQ(results.provenance.rank_hosts.at(4), "gpu-node-a2");
  EXPECT_EQ(results.provenance.libraries.at("nccl-tests"), "2.13.9");
  ASSERT_EQ(results.rows.size(), 12u);  // six sizes, out-of-place and in-place
  const ResultRow& big_out = results.rows[10];
  EXPECT_EQ(big_out.op, "all_reduce");
  EXPECT_FALSE(big_out.in_place);
  EXPECT_EQ(big_out.bytes, 1073741824u);
  EXPECT_EQ(big_out.count, 268435456u);
  EXPECT_EQ(big_out.dtype, "float");
  EXPECT_EQ(big_out.redop, "sum");
  EXPECT_FALSE(big_out.root.has_value());
  EXPECT_EQ(big_out.iterations, 20);
  EXPECT_DOUBLE_EQ(big_out.time_median_us, 22410.7);
  EXPECT_DOUBLE_EQ(big_out.algbw_gbps, 47.91);
  EXPECT_DOUBLE_EQ(*big_out.busbw_gbps, 83.85);
  EXPECT_EQ(big_out.wrong, 0u);
  const ResultRow& big_in = results.rows[11];
  EXPECT_TRUE(big_in.in_place);
  EXPECT_DOUBLE_EQ(*big_in.busbw_gbps, 83.89);
}

TEST(NcclTestsImporter, TruncatedLogNamesTheLine) {
  EXPECT_THAT(import_error(sample("all_reduce_perf_truncated.log")),
              HasSubstr("all_reduce_perf_truncated.log:23: expected 13 columns"));
}

TEST(OsuImporter, LatencyIsOneWayAndPointToPoint) {
  const ResultSet results = import_single(sample("osu_latency.log"), {});
  ASSERT_EQ(results.rows.size(), 6u);
  const ResultRow& row = results.rows[2];
  EXPECT_EQ(row.op, "latency");
  EXPECT_EQ(row.bytes, 8u);
  EXPECT_DOUBLE_EQ(row.time_median_us, 1.74);
  EXPECT_EQ(row.src_rank, 0);
  EXPECT_EQ(row.dst_rank, 1);
  EXPECT_EQ(row.dtype, "int8");
  EXPECT_EQ(results.provenance.libraries.at("osu-micro-benchmarks"), "v7.3");
}

TEST(OsuImporter, BandwidthIsDecimalMegabytes) {
  const ResultSet results = import_single(sample("osu_bw.log"), {});
  ASSERT_EQ(results.rows.size(), 4u);
  const ResultRow& row = results.rows[3];
  EXPECT_EQ(row.op, "bw");
  EXPECT_DOUBLE_EQ(row.algbw_gbps, 48.21075);  // 48210.75 MB/s = 48.21 GB/s
  EXPECT_NEAR(row.time_median_us, 4194304 / 48210.75, 1e-9);
}

TEST(OsuImporter, CollectivesNeedTheRankCountAndUseWholeBufferSizes) {
  EXPECT_THAT(import_error(sample("osu_allreduce.log")),
              HasSubstr("osu_allreduce.log:1: OSU Allreduce Latency logs "
                        "do not say how many processes ran: pass --ranks N"));
  const ResultSet results = import_single(sample("osu_allreduce.log"), {.nranks = 16});
  ASSERT_EQ(results.rows.size(), 3u);
  const ResultRow& row = results.rows[2];
  EXPECT_EQ(row.op, "all_reduce");
  EXPECT_EQ(row.dtype, "float");
  EXPECT_EQ(row.bytes, 1048576u);
  EXPECT_EQ(row.count, 262144u);
  EXPECT_EQ(row.iterations, 100);
  EXPECT_DOUBLE_EQ(row.time_min_us, 176.20);
  EXPECT_DOUBLE_EQ(row.time_max_us, 190.01);
  EXPECT_NEAR(row.algbw_gbps, 1048576 / 182.55e3, 1e-12);
  EXPECT_NEAR(*row.busbw_gbps, row.algbw_gbps * 2 * 15 / 16, 1e-12);
}

TEST(GoogleBenchmarkImporter, RepetitionsBecomeStatistics) {
  const ResultSet results = import_single(sample("gbench_copy.json"), {});
  ASSERT_EQ(results.rows.size(), 1u);  // three repetitions, the aggregate ignored
  const ResultRow& row = results.rows[0];
  EXPECT_EQ(row.backend, "gbench");
  EXPECT_EQ(row.op, "BM_HostCopy");
  EXPECT_EQ(row.bytes, 4096u);
  EXPECT_DOUBLE_EQ(row.time_min_us, 0.100);
  EXPECT_DOUBLE_EQ(row.time_median_us, 0.110);
  EXPECT_DOUBLE_EQ(row.time_max_us, 0.120);
  EXPECT_NEAR(row.time_cv, 0.01 / 0.11, 1e-9);  // sample stddev 10 ns over a mean of 110 ns
  EXPECT_FALSE(row.busbw_gbps.has_value());
  EXPECT_EQ(results.provenance.rank_hosts, std::vector<std::string>{"devbox-7"});
}

std::vector<ResultSet> import_text(const std::string& text, ImportOptions options = {}) {
  return import_log_text(text, "inline.log", options);
}

std::string import_text_error(const std::string& text, ImportOptions options = {}) {
  try {
    import_text(text, options);
  } catch (const InputError& e) { return e.what(); }
  return "no error";
}

// nccl-tests with -R (per-iteration columns) and -T (a timestamp after the in-place group), as
// nccl-tests' writeResultHeader prints them.
const std::string per_iteration_log =
    "# Collective test starting: all_reduce_perf\n"
    "# nThread 1 nGpus 2 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1\n"
    "#  Rank  0 Group  0 Pid 1 on n1 device  0 [0000:01:00] GPU\n"
    "#  Rank  1 Group  0 Pid 1 on n1 device  1 [0000:02:00] GPU\n"
    "#       size count type redop root time algbw busbw #wrong i_min i_max i_p99 i_cv% time algbw busbw #wrong i_min "
    "i_max i_p99 i_cv% timestamp\n"
    "        1024   256 float sum -1 10.00 0.10 0.10 0 9.50 12.00 11.50 4.20 11.00 0.09 0.09 0 10.00 13.00 12.50 3.00 "
    "2026-11-23 10:00:00\n"
    "# Avg bus bandwidth    : 0.095\n";

TEST(NcclTestsImporter, PerIterationColumnsBecomeStatistics) {
  const ResultSet r = import_text(per_iteration_log).front();
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(r.rows[0].time_median_us, 10.0);
  EXPECT_DOUBLE_EQ(r.rows[0].time_min_us, 9.5);
  EXPECT_DOUBLE_EQ(r.rows[0].time_max_us, 12.0);
  EXPECT_DOUBLE_EQ(r.rows[0].time_p99_us, 11.5);
  EXPECT_DOUBLE_EQ(r.rows[0].time_cv, 0.042);
  EXPECT_TRUE(r.rows[0].unreported_statistics.empty());
  EXPECT_DOUBLE_EQ(r.rows[1].time_p99_us, 12.5);
}

TEST(NcclTestsImporter, TablesPastedBackToBackUnderOneHeaderAreSeparateRuns) {
  const std::size_t row = per_iteration_log.find("        1024");
  const std::string second_table = per_iteration_log.substr(row);  // its rows and trailer, no header
  const std::vector<ResultSet> runs = import_text(per_iteration_log + second_table);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].rows.size(), 2u);
  EXPECT_EQ(runs[1].rows[0].op, "all_reduce");
  EXPECT_EQ(runs[1].provenance.run_id, "nccl-tests-inline-run2");
}

TEST(NcclTestsImporter, OldErrorColumnBeyondToleranceIsOneWrongElementAssumed) {
  const std::string log =
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#   Rank  0 Pid 1 on h device  0 [0x01] GPU\n"
      "#   Rank  1 Pid 1 on h device  1 [0x02] GPU\n"
      "#       size count type redop time algbw busbw error time algbw busbw error\n"
      "           8     2 float sum 10.0 0.00 0.00 0e+00 10.0 0.00 0.00 2e-02*\n"
      "# Avg bus bandwidth    : 0\n";
  const ResultSet r = import_log_text(log, "all_reduce_perf_old.log", {}).front();  // op from the file name
  EXPECT_EQ(r.rows[0].wrong, 0u);
  EXPECT_EQ(r.rows[1].wrong, 1u);
  ASSERT_EQ(r.provenance.assumptions.size(), 1u);
  EXPECT_THAT(r.provenance.assumptions[0], HasSubstr("recorded as 1 wrong element"));
}

TEST(NcclTestsImporter, TheRankCountComesFromRanksOrSrunWhenTheLogHasNone) {
  std::string table = per_iteration_log;
  table.erase(table.find("#  Rank"), table.find("#       size") - table.find("#  Rank"));
  table.erase(0, table.find('\n', table.find("# nThread")) + 1);  // no parameter line either
  const std::string log = "srun -N 4 --ntasks=32 ./all_reduce_perf -b 1K -e 1K\n" + table;
  const ResultSet from_srun = import_text(log).front();
  EXPECT_EQ(from_srun.provenance.nranks, 32);
  EXPECT_EQ(from_srun.provenance.nodes, 4);
  // The table's busbw equals its algbw: all_reduce on 2 ranks, not 32. Said, not corrected.
  EXPECT_THAT(from_srun.provenance.assumptions,
              ::testing::Contains(HasSubstr("busbw/algbw does not fit 32 ranks (it implies 2)")));
  const ResultSet given = import_text(log, {.nranks = 2}).front();
  EXPECT_EQ(given.provenance.nranks, 2);  // --ranks wins over the launcher line, and is no assumption
  EXPECT_THAT(given.provenance.assumptions, ::testing::Not(::testing::Contains(HasSubstr("ranks from the launcher"))));
}

TEST(NcclTestsImporter, RankLinesThatSkipRanksWithoutAnEllipsisAreRefused) {
  std::string log = per_iteration_log;
  log.replace(log.find("Rank  1"), 7, "Rank  2");
  EXPECT_THAT(import_text_error(log),
              HasSubstr("inline.log:1: the '#  Rank' lines skip ranks (last one 2) without '...'"));
}

TEST(NcclTestsImporter, ASecondRunThatStopsEarlyIsRefusedNamingTheLine) {
  const std::string log = per_iteration_log + per_iteration_log.substr(0, per_iteration_log.find("# Avg"));
  EXPECT_THAT(import_text_error(log), HasSubstr("inline.log:13: the log ends before '# Avg bus bandwidth'"));
}

// Rows are read by position from the column header: a header whose per-iteration columns run past
// the group (found by the fuzzer: "time algbw i_min #wrong") is not one to read rows by.
TEST(NcclTestsImporter, AHeaderWhoseColumnsDoNotFitTheFormatIsNotReadBy) {
  std::string log = per_iteration_log;
  log.replace(log.find("#wrong i_min i_max i_p99 i_cv% time"), 35, "i_min  time");
  EXPECT_THAT(import_text_error(log),
              HasSubstr("inline.log:6: a table row of 23 columns without the '# size count type"));
}

// A failure after part of the table: the run is refused naming it, not as "truncated".
TEST(NcclTestsImporter, AFailureMidTableIsRefusedNamingItAndTheSizesDone) {
  const std::string log = per_iteration_log.substr(0, per_iteration_log.find("# Avg")) +
                          "n1: Test NCCL failure common.cu:1003 'unhandled system error / NET/IB : Got async event'\n"
                          " .. n1 pid 1: Test failure common.cu:1147\n";
  EXPECT_THAT(import_text_error(log),
              HasSubstr("inline.log:7: the nccl-tests run failed after 1 size: n1: Test NCCL failure common.cu:1003 "
                        "'unhandled system error / NET/IB : Got async event'; nothing imported"));
}

// The environment as NCCL_DEBUG=INFO reports it is the run's; a bare test command is its command line.
TEST(NcclTestsImporter, EnvironmentReportedByNcclAndABareTestCommand) {
  const std::string log = "COMMAND: ./build/all_reduce_perf -b 1K -e 1K -g 2\n"
                          "n1:1:1 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0:1\n" +
                          per_iteration_log;
  const ResultSet r = import_text(log).front();
  EXPECT_EQ(r.provenance.command_line, "./build/all_reduce_perf -b 1K -e 1K -g 2");
  EXPECT_EQ(r.provenance.environment.at("NCCL_IB_HCA"), "mlx5_0:1");
  EXPECT_EQ(r.rows.at(0).op, "all_reduce");
}

// A latency section whose banner is missing after a bandwidth test is latency, not MB/s.
TEST(OsuImporter, ALatencyHeaderAfterABandwidthBannerIsLatency) {
  const std::string log = "# OSU MPI Bandwidth Test v7.3\n"
                          "# Size      Bandwidth (MB/s)\n"
                          "8                    2600.00\n"
                          "# Size          Latency (us)\n"
                          "8                      26.01\n";
  const ResultSet r = import_text(log).front();
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[1].op, "latency");
  EXPECT_DOUBLE_EQ(r.rows[1].time_median_us, 26.01);  // not 0.026 GB/s
  EXPECT_THAT(r.provenance.assumptions.at(0),
              HasSubstr("line 4: a '# Size' header without its '# OSU MPI ... Test' banner: its latency column is read "
                        "as Latency"));
}

// The dashes below perftest's rows close the table: a cut row after them is not read, a cut row
// inside the table still is refused.
TEST(PerftestImporter, DashesCloseTheTableButACutRowInsideItIsRefused) {
  const std::string table = "                    RDMA_Write BW Test\n"
                            " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
                            " 65536      5000             0.00               20000.00             0.320000\n";
  EXPECT_EQ(import_text(table + "---------------------\n8 192.168.10.2\n").front().rows.size(), 1u);
  EXPECT_THAT(import_text_error(table + " 131072 5000\n"), HasSubstr("inline.log:4: expected 5 columns"));
}

// OSU 7's tail-latency columns: P50 is the median, the average the mean, P99 the p99.
TEST(OsuImporter, PercentileColumnsGiveTheMedianMeanAndP99) {
  const std::string log = "# OSU MPI Latency Test v7.4\n"
                          "# Datatype: MPI_CHAR.\n"
                          "# Size       Avg Latency(us)   P50 Tail Lat(us)   P90 Tail Lat(us)   P99 Tail Lat(us)\n"
                          "1                       2.10               1.98               2.31               4.75\n";
  const ResultSet r = import_text(log).front();
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(r.rows[0].time_median_us, 1.98);
  ASSERT_TRUE(r.rows[0].time_mean_us);
  EXPECT_DOUBLE_EQ(*r.rows[0].time_mean_us, 2.10);
  EXPECT_DOUBLE_EQ(r.rows[0].time_p99_us, 4.75);
  EXPECT_EQ(r.rows[0].unreported_statistics, "time_min_us time_max_us time_cv");
}

TEST(OsuImporter, ATestRepeatedInOneFileIsASecondRun) {
  const std::string log = read_text_file(sample("osu_latency.log"));
  const std::vector<ResultSet> runs = import_log_text(log + log, "osu_latency_twice.log", {});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].rows.size(), 6u);
  EXPECT_EQ(runs[1].rows.size(), 6u);
  EXPECT_EQ(runs[1].provenance.run_id, "osu-osu_latency_twice-run2");
  EXPECT_EQ(runs[1].rows[0].run_id, "osu-osu_latency_twice-run2");
}

TEST(PerftestImporter, BidirectionalBandwidthCountsBothDirections) {
  const std::string log = "                    RDMA_Write Bidirectional BW Test\n"
                          " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
                          " 65536      5000             0.00               20000.00             0.320000\n";
  const ResultSet r = import_text(log).front();
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].op, "bibw");
  EXPECT_DOUBLE_EQ(r.rows[0].algbw_gbps, 20000.0 * 1048576 / 1e9);
  EXPECT_NEAR(r.rows[0].time_median_us, 2 * 65536 / (20000.0 * 1048576) * 1e6, 1e-12);
}

TEST(PerftestImporter, DurationLatencyHasOnlyTheAverage) {
  const std::string log = "                    Send Latency Test\n"
                          " #bytes #iterations    t_avg[usec]    tps average\n"
                          " 2       2905862        1.72           290586.20\n";
  const ResultSet r = import_text(log).front();
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.provenance.tool_version, "perftest ib_send_lat");
  EXPECT_DOUBLE_EQ(r.rows[0].time_median_us, 1.72);
  EXPECT_EQ(r.rows[0].unreported_statistics, "time_min_us time_p99_us time_max_us time_cv");
  EXPECT_THAT(r.provenance.assumptions.at(0), HasSubstr("the average t_avg is recorded as the median"));
}

TEST(Importers, UnknownContentIsRefusedNamingTheFormatsTried) {
  const std::string message = import_error(sample("../CMakeLists.txt"));
  EXPECT_THAT(message, HasSubstr("CMakeLists.txt:1: not a log format fabricbench can import"));
  EXPECT_THAT(message, HasSubstr("nccl-tests"));
}

}  // namespace
}  // namespace fb
