#include "common/errors.hpp"
#include "common/op_catalog.hpp"
#include "common/rank_placement.hpp"
#include "benchmarks/core/result_builder.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fb {
namespace {

// Every op of the catalog, found by name, with the numbers its definition gives: the busbw factor
// of nccl-tests (src/*.cu GetBw, doc/PERFORMANCE.md) at 2, 3 and 8 ranks, OSU's vector variants as
// their nccl-tests counterparts, point-to-point ops and device copies 1 (algbw is the link's
// rate); and the elements per rank of a 1 MiB float sweep point on 8 ranks (nccl-tests' count:
// the whole buffer, or a rank's share where the size is the whole n-rank buffer).
struct OpNumbers {
  std::string_view name;
  double busbw_factor_2, busbw_factor_3, busbw_factor_8;
  std::uint64_t count_1mib_float_8_ranks;
};
constexpr std::uint64_t whole = (1 << 20) / 4;
constexpr std::uint64_t share = (1 << 20) / 4 / 8;
constexpr OpNumbers every_op[] = {
    {"all_reduce", 1.0, 4.0 / 3, 1.75, whole},
    {"all_gather", 0.5, 2.0 / 3, 0.875, share},
    {"reduce_scatter", 0.5, 2.0 / 3, 0.875, share},
    {"broadcast", 1, 1, 1, whole},
    {"alltoall", 0.5, 2.0 / 3, 0.875, share},
    {"reduce", 1, 1, 1, whole},
    {"gather", 0.5, 2.0 / 3, 0.875, share},
    {"scatter", 0.5, 2.0 / 3, 0.875, share},
    {"allgatherv", 0.5, 2.0 / 3, 0.875, share},
    {"alltoallv", 0.5, 2.0 / 3, 0.875, share},
    {"sendrecv", 1, 1, 1, whole},
    {"latency", 1, 1, 1, whole},
    {"bw", 1, 1, 1, whole},
    {"bibw", 1, 1, 1, whole},
    {"pairwise", 1, 1, 1, whole},
    {"pairwise_latency", 1, 1, 1, whole},
    {"concurrent", 1, 1, 1, whole},
    {"h2d_ce", 1, 1, 1, whole},
    {"h2d_sm", 1, 1, 1, whole},
    {"d2h_ce", 1, 1, 1, whole},
    {"d2h_sm", 1, 1, 1, whole},
    {"local_ce", 1, 1, 1, whole},
    {"local_sm", 1, 1, 1, whole},
    {"d2d_ce", 1, 1, 1, whole},
    {"d2d_sm", 1, 1, 1, whole},
    {"d2d_bidir_ce", 1, 1, 1, whole},
    {"d2d_bidir_sm", 1, 1, 1, whole},
};

TEST(BusbwFactor, EveryOpMatchesNcclTestsAndOsu) {
  for (const OpNumbers& expected : every_op) {
    SCOPED_TRACE(expected.name);
    const OpTraits* op = find_op(expected.name);
    ASSERT_NE(op, nullptr);
    EXPECT_DOUBLE_EQ(*busbw_factor_for(*op, 2), expected.busbw_factor_2);
    EXPECT_DOUBLE_EQ(*busbw_factor_for(*op, 3), expected.busbw_factor_3);
    EXPECT_DOUBLE_EQ(*busbw_factor_for(*op, 8), expected.busbw_factor_8);
    EXPECT_EQ(count_per_rank(*op, 1 << 20, 4, 8), expected.count_1mib_float_8_ranks);
  }
  // A new op states its numbers here.
  EXPECT_EQ(std::size(every_op), all_ops().size());
}

std::set<std::string_view> ops_where(bool (*holds)(const OpTraits&)) {
  std::set<std::string_view> names;
  for (const OpTraits& op : all_ops())
    if (holds(op)) names.insert(op.name);
  return names;
}

TEST(OpCatalog, PairQueriesFollowTheOpsPrimitive) {
  using Names = std::set<std::string_view>;
  EXPECT_EQ(ops_where(is_pair_op), (Names{"latency", "bw", "bibw", "pairwise", "pairwise_latency", "concurrent"}));
  EXPECT_EQ(ops_where(reports_latency), (Names{"latency", "pairwise_latency"}));
  EXPECT_EQ(ops_where(measures_contention), (Names{"concurrent"}));
  EXPECT_EQ(primitive_of(op_by_name("pairwise")).name, "bw");
  EXPECT_EQ(primitive_of(op_by_name("pairwise_latency")).name, "latency");
  EXPECT_EQ(primitive_of(op_by_name("concurrent")).name, "bw");
  EXPECT_EQ(&primitive_of(op_by_name("bibw")), &op_by_name("bibw"));
  EXPECT_EQ(&primitive_of(op_by_name("all_reduce")), &op_by_name("all_reduce"));
  // bibw counts both directions: twice the message per timed unit.
  EXPECT_TRUE(op_by_name("bibw").bidirectional);
  EXPECT_EQ(op_by_name("bibw").algbw_bytes_factor, 2.0);
  EXPECT_FALSE(op_by_name("bw").bidirectional);
}

TEST(OpCatalog, RootsAndReductionsAsNcclTestsTakeThem) {
  using Names = std::set<std::string_view>;
  EXPECT_EQ(ops_where([](const OpTraits& op) { return op.takes_redop; }),
            (Names{"all_reduce", "reduce_scatter", "reduce"}));
  EXPECT_EQ(ops_where([](const OpTraits& op) { return op.takes_root; }),
            (Names{"broadcast", "reduce", "gather", "scatter"}));
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

// A ping-pong's two ranks time shifted intervals: the initiator each round trip, the responder
// from one send to the next. Initiator 3 1 3 1 ms and responder 1 3 1 3 ms are loops of 8 ms, 2 ms
// an iteration on either rank, as osu_latency's loop mean says; the per-iteration maxima are
// 3 3 3 3 ms. The row's mean is the slowest rank's loop mean the backend measured, its median
// and extremes stay those of the maxima.
TEST_F(ResultRowTest, TheMeanIsTheLoopMeanWhereTheBackendMeasuredOne) {
  measurement.unit_seconds = {3e-3, 3e-3, 3e-3, 3e-3};
  measurement.mean_unit_seconds = 2e-3;
  const ResultRow row = make_result_row(case_of("latency", 8), measurement, context);
  ASSERT_TRUE(row.time_mean_us.has_value());
  EXPECT_DOUBLE_EQ(*row.time_mean_us, 2000);
  EXPECT_DOUBLE_EQ(row.time_median_us, 3000);
  EXPECT_DOUBLE_EQ(row.time_min_us, 3000);
  // Without one (collectives, whose iterations start together), the mean of the maxima.
  measurement.mean_unit_seconds.reset();
  EXPECT_DOUBLE_EQ(*make_result_row(case_of("latency", 8), measurement, context).time_mean_us, 3000);
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
