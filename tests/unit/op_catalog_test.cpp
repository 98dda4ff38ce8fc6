#include "common/errors.hpp"
#include "common/op_catalog.hpp"
#include "common/rank_placement.hpp"
#include "benchmarks/core/result_builder.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fb {
namespace {

TEST(BusbwFactor, MatchesNcclTestsForEveryCollective) {
  for (int n : {2, 3, 4, 8}) {
    SCOPED_TRACE(n);
    const double ring = static_cast<double>(n - 1) / n;
    EXPECT_DOUBLE_EQ(*busbw_factor_for(op_by_name("all_reduce"), n), 2 * ring);
    EXPECT_DOUBLE_EQ(*busbw_factor_for(op_by_name("all_gather"), n), ring);
    EXPECT_DOUBLE_EQ(*busbw_factor_for(op_by_name("reduce_scatter"), n), ring);
    EXPECT_DOUBLE_EQ(*busbw_factor_for(op_by_name("alltoall"), n), ring);
    EXPECT_DOUBLE_EQ(*busbw_factor_for(op_by_name("broadcast"), n), 1);
    EXPECT_DOUBLE_EQ(*busbw_factor_for(op_by_name("sendrecv"), n), 1);
    EXPECT_DOUBLE_EQ(*busbw_factor_for(op_by_name("reduce"), n), 1);
    EXPECT_DOUBLE_EQ(*busbw_factor_for(op_by_name("gather"), n), ring);
    EXPECT_DOUBLE_EQ(*busbw_factor_for(op_by_name("scatter"), n), ring);
    EXPECT_DOUBLE_EQ(*busbw_factor_for(op_by_name("allgatherv"), n), ring);
    EXPECT_DOUBLE_EQ(*busbw_factor_for(op_by_name("alltoallv"), n), ring);
  }
}

TEST(BusbwFactor, UndefinedForOneRank) {
  for (const OpTraits& op : all_ops()) EXPECT_FALSE(busbw_factor_for(op, 1).has_value()) << op.name;
}

TEST(OpCatalog, UnknownOpNamesTheKnownOnes) {
  EXPECT_EQ(find_op("allreduce"), nullptr);
  try {
    op_by_name("allreduce");
    FAIL() << "allreduce found";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'allreduce'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("all_reduce"), std::string::npos) << e.what();
  }
}

TEST(CountPerRank, WholeBufferOpsDivideBySizeAndRanks) {
  EXPECT_EQ(count_per_rank(op_by_name("all_reduce"), 1024, 4, 4), 256u);
  EXPECT_EQ(count_per_rank(op_by_name("broadcast"), 1024, 8, 4), 128u);
  EXPECT_EQ(count_per_rank(op_by_name("all_gather"), 1024, 4, 4), 64u);
  EXPECT_EQ(count_per_rank(op_by_name("reduce_scatter"), 1024, 4, 2), 128u);
  EXPECT_EQ(count_per_rank(op_by_name("alltoall"), 1024, 1, 8), 128u);
  EXPECT_EQ(size_unit_bytes(op_by_name("all_gather"), 4, 4), 16u);
  EXPECT_EQ(size_unit_bytes(op_by_name("all_reduce"), 4, 4), 4u);
}

// A measurement of three iterations whose median is 2 ms, on a 4-rank, 2-node placement.
class ResultRowTest : public ::testing::Test {
 protected:
  ResultRowTest() {
    measurement.unit_seconds = {3e-3, 1e-3, 2e-3};
    measurement.wrong = 0;
    context.run_id = "run-1";
    context.backend = "mpi";
    context.placement.rank = 0;
    context.placement.nranks = 4;
    context.placement.rank_hosts = {"a", "a", "b", "b"};
    context.placement.nodes = 2;
    context.placement.ranks_per_node = 2;
  }

  BenchmarkCase case_of(std::string_view op, std::uint64_t bytes) const {
    BenchmarkCase benchmark_case;
    benchmark_case.op = &op_by_name(op);
    benchmark_case.bytes = bytes;
    benchmark_case.count = count_per_rank(*benchmark_case.op, bytes, 4, context.placement.nranks);
    return benchmark_case;
  }

  Measurement measurement;
  RunContext context;
};

TEST_F(ResultRowTest, AllReduceBandwidthsComeFromTheMedian) {
  const ResultRow row = make_result_row(case_of("all_reduce", 1'000'000), measurement, context);
  EXPECT_EQ(row.run_id, "run-1");
  EXPECT_EQ(row.op, "all_reduce");
  EXPECT_EQ(row.dtype, "float");
  EXPECT_EQ(row.redop, "sum");
  EXPECT_FALSE(row.root.has_value());
  EXPECT_FALSE(row.src_rank.has_value());
  EXPECT_EQ(row.nranks, 4);
  EXPECT_EQ(row.nodes, 2);
  EXPECT_EQ(row.ranks_per_node, 2);
  EXPECT_EQ(row.bytes, 1'000'000u);
  EXPECT_EQ(row.count, 250'000u);
  EXPECT_EQ(row.iterations, 3);
  EXPECT_DOUBLE_EQ(row.time_min_us, 1000);
  EXPECT_DOUBLE_EQ(row.time_median_us, 2000);
  EXPECT_DOUBLE_EQ(row.time_max_us, 3000);
  EXPECT_DOUBLE_EQ(row.algbw_gbps, 1e6 / 2e-3 / 1e9);
  ASSERT_TRUE(row.busbw_gbps.has_value());
  EXPECT_DOUBLE_EQ(*row.busbw_gbps, row.algbw_gbps * 2 * 3 / 4);
  EXPECT_EQ(row.wrong, std::optional<std::uint64_t>(0));
  EXPECT_EQ(row.timestamp.size(), std::string("2026-11-22T23:15:04Z").size());
}

TEST_F(ResultRowTest, BusbwIsEmptyForOneRank) {
  context.placement.nranks = 1;
  context.placement.rank_hosts = {"a"};
  const ResultRow row = make_result_row(case_of("all_reduce", 4096), measurement, context);
  EXPECT_GT(row.algbw_gbps, 0);
  EXPECT_FALSE(row.busbw_gbps.has_value());
}

TEST_F(ResultRowTest, BroadcastKeepsTheRootAndHasNoRedop) {
  BenchmarkCase benchmark_case = case_of("broadcast", 4096);
  benchmark_case.root = 3;
  const ResultRow row = make_result_row(benchmark_case, measurement, context);
  EXPECT_EQ(row.root, std::optional<int>(3));
  EXPECT_EQ(row.redop, "none");
}

TEST_F(ResultRowTest, BibwCountsBothDirections) {
  BenchmarkCase benchmark_case = case_of("bibw", 1'000'000);
  benchmark_case.src_rank = 1;
  benchmark_case.dst_rank = 2;
  const ResultRow row = make_result_row(benchmark_case, measurement, context);
  EXPECT_DOUBLE_EQ(row.algbw_gbps, 2 * 1e6 / 2e-3 / 1e9);
  EXPECT_DOUBLE_EQ(*row.busbw_gbps, row.algbw_gbps);
  EXPECT_EQ(row.src_rank, std::optional<int>(1));
  EXPECT_EQ(row.dst_rank, std::optional<int>(2));
  EXPECT_EQ(row.src_host, "a");
  EXPECT_EQ(row.dst_host, "b");
}

TEST_F(ResultRowTest, UncheckedMeasurementLeavesWrongEmpty) {
  measurement.wrong.reset();
  EXPECT_FALSE(make_result_row(case_of("bw", 64), measurement, context).wrong.has_value());
}

TEST_F(ResultRowTest, DeviceCopyNamesTheMemoriesOnTheMeasuringHost) {
  context.placement = placement_of({"gpuhost"}, 0);
  Measurement copy = measurement;
  copy.pair = RankPair{host_memory, 1};
  const ResultRow to_gpu = make_result_row(case_of("h2d_ce", 1'000'000), copy, context);
  EXPECT_EQ(to_gpu.src_device, "host");
  EXPECT_EQ(to_gpu.dst_device, "GPU1");
  EXPECT_EQ(to_gpu.src_rank, std::optional<int>(host_memory));
  EXPECT_EQ(to_gpu.dst_rank, std::optional<int>(1));
  EXPECT_EQ(to_gpu.src_host, "gpuhost");
  EXPECT_EQ(to_gpu.dst_host, "gpuhost");
  EXPECT_FALSE(to_gpu.busbw_gbps.has_value());
  EXPECT_DOUBLE_EQ(to_gpu.algbw_gbps, 1e6 / 2e-3 / 1e9);

  copy.pair = RankPair{0, 0};
  // A local copy reads and writes every byte: device-memory bandwidth counts both.
  EXPECT_DOUBLE_EQ(make_result_row(case_of("local_sm", 1'000'000), copy, context).algbw_gbps, 2 * 1e6 / 2e-3 / 1e9);
}

TEST(OpCatalog, DeviceCopiesDescribeRouteEngineAndDirection) {
  for (const OpTraits& op : all_ops()) {
    if (op.op_class != OpClass::device_copy) {
      EXPECT_EQ(op.copy_route, CopyRoute::none) << op.name;
      continue;
    }
    SCOPED_TRACE(op.name);
    EXPECT_NE(op.copy_route, CopyRoute::none);
    EXPECT_EQ(op.copy_engine, op.name.ends_with("_ce") ? CopyEngine::copy_engine : CopyEngine::sm_kernel);
    EXPECT_EQ(op.bidirectional, op.name.find("bidir") != std::string_view::npos);
    const bool counts_two_transfers = op.bidirectional || op.copy_route == CopyRoute::device_local;
    EXPECT_EQ(op.algbw_bytes_factor, counts_two_transfers ? 2.0 : 1.0);
    EXPECT_EQ(op.min_ranks, 1);
  }
  EXPECT_EQ(op_by_name("d2d_ce").copy_route, CopyRoute::device_to_device);
  EXPECT_EQ(op_by_name("d2h_sm").copy_route, CopyRoute::device_to_host);
}

TEST(Placement, CountsNodesAndTheBusiestNode) {
  const RankPlacement placement = placement_of({"a", "a", "b", "a", "c"}, 3);
  EXPECT_EQ(placement.rank, 3);
  EXPECT_EQ(placement.nranks, 5);
  EXPECT_EQ(placement.nodes, 3);
  EXPECT_EQ(placement.ranks_per_node, 3);
}

TEST(Placement, RanksOfUnknownHostsCountTowardsNoNode) {
  // An imported log that names the hosts of some ranks only.
  const std::vector<std::string> rank_hosts{"a", "", "b", "b", "", ""};
  const NodeCount count = count_nodes(rank_hosts);
  EXPECT_EQ(count.nodes, 2);
  EXPECT_EQ(count.ranks_per_node, 2);
  EXPECT_EQ(count_nodes(std::vector<std::string>(4, "")).nodes, 0);
}

}  // namespace
}  // namespace fb
