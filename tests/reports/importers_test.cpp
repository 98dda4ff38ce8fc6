#include "core/errors.hpp"
#include "importers/importer_registry.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Importers, EveryFormatRegistersItself) {
  std::vector<std::string> names;
  for (const Importer& importer : importer_registry()) names.push_back(importer.name);
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("nccl-tests", "nccl-tests-json", "osu", "gbench", "gbench-console",
                                                    "perftest"));
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
  EXPECT_THAT(import_error(sample("osu_allreduce.log")), HasSubstr("osu_allreduce.log:1: OSU Allreduce Latency logs "
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

TEST(Importers, UnknownContentIsRefusedNamingTheFormatsTried) {
  const std::string message = import_error(sample("../CMakeLists.txt"));
  EXPECT_THAT(message, HasSubstr("CMakeLists.txt:1: not a log format fabricbench can import"));
  EXPECT_THAT(message, HasSubstr("nccl-tests"));
}

}  // namespace
}  // namespace fb
