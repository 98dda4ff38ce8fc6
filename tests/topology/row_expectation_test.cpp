#include "topology/row_expectation.hpp"

#include "topology/collective_model.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fb::topo {
namespace {

// ethernet_pair.yaml: hosts node1 and node2, CPU0 and CPU1 joined by the SMP link of the default
// CPU (Sapphire Rapids: 22 GB/s, 0.2 us), the NIC on CPU0 over PCIe Gen4 x16 (24 GB/s, 0.5 us),
// 100G Ethernet to one switch (12.5 GB/s, 5 us per hop).
constexpr double smp_gbps = 22.0;
constexpr double smp_latency_us = 0.2;
constexpr double ethernet_gbps = 12.5;
constexpr double cpu0_to_cpu0_latency_us = 0.5 + 5.0 + 5.0 + 0.5;

class RowExpectation : public ::testing::Test {
 protected:
  RowExpectation() : graph_(test::parse_sample("ethernet_pair.yaml")), model_(graph_) {}

  static ResultRow pair_row(const std::string& op, int src, int dst, const std::vector<std::string>& hosts,
                            std::uint64_t bytes) {
    ResultRow row;
    row.run_id = "run";
    row.backend = "mpi";
    row.op = op;
    row.nranks = static_cast<int>(hosts.size());
    row.src_rank = src;
    row.dst_rank = dst;
    row.src_host = hosts[static_cast<std::size_t>(src)];
    row.dst_host = hosts[static_cast<std::size_t>(dst)];
    row.bytes = bytes;
    row.time_median_us = 100;
    row.algbw_gbps = 5;
    row.busbw_gbps = 5;
    return row;
  }

  Graph graph_;
  ExpectationModel model_;
};

TEST_F(RowExpectation, AllReduceExpectsTheCollectiveModelsPredictionForItsPlacement) {
  // Two ranks per host: each host's ranks go to CPU0 and CPU1 in turn.
  const std::vector<std::string> hosts{"node1", "node1", "node2", "node2"};
  const CollectiveModel collectives =
      model_collectives(graph_, std::vector<VertexId>{graph_.find("node1/CPU0"), graph_.find("node1/CPU1"),
                                                      graph_.find("node2/CPU0"), graph_.find("node2/CPU1")});
  // Host-memory ranks (MPI) get ring and tree in Simple only: no NCCL protocols, no NVLS.
  EXPECT_FALSE(collectives.gpu_ranks);
  for (const std::uint64_t bytes : {std::uint64_t{64}, std::uint64_t{1} << 20, std::uint64_t{1} << 28}) {
    ResultRow row;
    row.backend = "mpi";
    row.op = "all_reduce";
    row.nranks = 4;
    row.bytes = bytes;
    row.time_median_us = 1000;
    row.algbw_gbps = 2;
    row.busbw_gbps = 3;
    const Expectation expectation = model_.expect(row, hosts);
    const Prediction prediction = predict(collectives, op_by_name("all_reduce"), bytes);
    EXPECT_EQ(prediction.protocol, Protocol::simple);
    const ResultRow predicted = predicted_row(collectives, prediction, op_by_name("all_reduce"), bytes, "", "");
    ASSERT_TRUE(expectation.busbw_gbps) << expectation.problem;
    EXPECT_DOUBLE_EQ(*expectation.busbw_gbps, *predicted.busbw_gbps);
    EXPECT_FALSE(expectation.time_us);
    set_expectation(row, expectation);
    EXPECT_EQ(row.expected_busbw_gbps, predicted.busbw_gbps);
    EXPECT_EQ(row.model_algorithm, predicted.model_algorithm);
    EXPECT_EQ(row.model_protocol, "Simple");
    EXPECT_EQ(row.model_limit, predicted.model_limit);
    ASSERT_TRUE(row.efficiency_pct);
    EXPECT_DOUBLE_EQ(*row.efficiency_pct, 100 * 3 / *predicted.busbw_gbps);
  }
  // The ring crosses the Ethernet link, which bounds it at what NCCL's socket transport gets out of it.
  EXPECT_DOUBLE_EQ(collectives.ring_gbps,
                   ethernet_gbps * collective_efficiency(*network_by_rate(LinkType::ethernet, 1000)));
  EXPECT_NE(collectives.ring_limit.find("Ethernet"), std::string::npos) << collectives.ring_limit;
}

TEST_F(RowExpectation, LatencyAcrossHostsIsAlphaPlusBytesOverTheBottleneck) {
  ResultRow row = pair_row("latency", 0, 1, {"node1", "node2"}, 1 << 20);
  const Expectation expectation = model_.expect(row, std::vector<std::string>{"node1", "node2"});
  ASSERT_TRUE(expectation.time_us) << expectation.problem;
  const double expected_us = cpu0_to_cpu0_latency_us + (1 << 20) / (ethernet_gbps * 1e3);
  EXPECT_NEAR(*expectation.time_us, expected_us, 1e-9 * expected_us);
  EXPECT_FALSE(expectation.busbw_gbps);
  set_expectation(row, expectation);
  // Latency: the expected time over the measured one.
  EXPECT_NEAR(*row.efficiency_pct, 100 * expected_us / row.time_median_us, 1e-9);

  const PairPathResult path = model_.pair_path(row, std::vector<std::string>{"node1", "node2"});
  ASSERT_TRUE(path.path);
  EXPECT_EQ(path.path->bottleneck, "Ethernet");
  EXPECT_NEAR(path.path->alpha_us, cpu0_to_cpu0_latency_us, 1e-12);
}

TEST_F(RowExpectation, RanksOfOneHostOnDifferentCpusUseTheSmpLink) {
  ResultRow row = pair_row("bw", 0, 1, {"node1", "node1"}, 1 << 20);
  const Expectation expectation = model_.expect(row, std::vector<std::string>{"node1", "node1"});
  ASSERT_TRUE(expectation.busbw_gbps) << expectation.problem;
  EXPECT_DOUBLE_EQ(*expectation.busbw_gbps, smp_gbps);
  set_expectation(row, expectation);
  EXPECT_DOUBLE_EQ(*row.efficiency_pct, 100 * 5 / smp_gbps);
  const PairPathResult path = model_.pair_path(row, std::vector<std::string>{"node1", "node1"});
  ASSERT_TRUE(path.path);
  EXPECT_DOUBLE_EQ(path.path->alpha_us, smp_latency_us);
  EXPECT_EQ(path.path->bottleneck, "SMP Intel Sapphire Rapids");
}

TEST_F(RowExpectation, BibwExpectsBothDirectionsAtOnce) {
  const std::vector<std::string> hosts{"node1", "node2"};
  const Expectation expectation = model_.expect(pair_row("bibw", 0, 1, hosts, 1 << 20), hosts);
  ASSERT_TRUE(expectation.busbw_gbps) << expectation.problem;
  EXPECT_DOUBLE_EQ(*expectation.busbw_gbps, 2 * ethernet_gbps);
}

TEST_F(RowExpectation, RanksSharingACpuHaveNoExpectation) {
  // Ranks 0 and 2 of node1 are its first and third: both on CPU0 of two.
  const std::vector<std::string> hosts{"node1", "node1", "node1"};
  ResultRow row = pair_row("latency", 0, 2, hosts, 8);
  row.expected_time_us = 1.0;
  row.efficiency_pct = 50.0;
  const Expectation expectation = model_.expect(row, hosts);
  EXPECT_FALSE(expectation.time_us);
  EXPECT_FALSE(expectation.busbw_gbps);
  EXPECT_NE(expectation.problem.find("sharing a cpu"), std::string::npos) << expectation.problem;
  set_expectation(row, expectation);
  EXPECT_FALSE(row.expected_time_us);
  EXPECT_FALSE(row.efficiency_pct);
}

TEST_F(RowExpectation, UnknownHostIsNamedOnceNotAnError) {
  const std::vector<std::string> hosts{"node1", "gpu-box-7"};
  const Expectation pair = model_.expect(pair_row("bw", 0, 1, hosts, 8), hosts);
  EXPECT_FALSE(pair.busbw_gbps);
  EXPECT_EQ(pair.problem, "host gpu-box-7 is not in the topology: no expectation for its rows");
  ResultRow all_reduce;
  all_reduce.backend = "mpi";
  all_reduce.op = "all_reduce";
  all_reduce.nranks = 2;
  all_reduce.bytes = 1024;
  // The same reason for every row, so a caller reporting each reason once says it once.
  EXPECT_EQ(model_.expect(all_reduce, hosts).problem, pair.problem);
}

TEST_F(RowExpectation, OpsAndBackendsTheModelDoesNotPredictHaveNoneAndNoProblem) {
  const std::vector<std::string> hosts{"node1", "node2"};
  // A copy within one GPU's memory crosses no link the topology has.
  ResultRow local_copy = pair_row("local_ce", 0, 1, hosts, 1024);
  local_copy.src_rank.reset();
  const Expectation none = model_.expect(local_copy, hosts);
  EXPECT_FALSE(none.busbw_gbps);
  EXPECT_TRUE(none.problem.empty());
  // Every collective is modelled.
  for (const char* op :
       {"broadcast", "alltoall", "sendrecv", "reduce", "gather", "scatter", "allgatherv", "alltoallv"}) {
    ResultRow modelled = pair_row(op, 0, 1, hosts, 1 << 20);
    modelled.src_rank.reset();
    EXPECT_TRUE(model_.expect(modelled, hosts).busbw_gbps) << op;
  }
  ResultRow predicted = pair_row("bw", 0, 1, hosts, 1024);
  predicted.backend = "model";
  EXPECT_FALSE(model_.expect(predicted, hosts).busbw_gbps);
  ResultRow one_rank = pair_row("all_reduce", 0, 0, {"node1"}, 1024);
  one_rank.nranks = 1;
  EXPECT_FALSE(model_.expect(one_rank, std::vector<std::string>{"node1"}).busbw_gbps);
}

TEST(RowExpectationGpus, NcclTestsRanksDriveTheHostsGpusInOrder) {
  const Graph graph = test::parse_sample("pcie_box.yaml");
  ExpectationModel model(graph);
  ResultRow row;
  row.backend = "nccl-tests";
  row.op = "all_gather";
  row.nranks = 8;
  row.bytes = 1 << 24;
  const std::vector<std::string> hosts(8, "node00001");
  const CollectiveModel collectives = model_collectives(graph, place_ranks(graph, 1, 8));
  const ResultRow predicted = predicted_row(collectives, predict(collectives, op_by_name("all_gather"), row.bytes),
                                            op_by_name("all_gather"), row.bytes, "", "");
  const Expectation expectation = model.expect(row, hosts);
  ASSERT_TRUE(expectation.busbw_gbps) << expectation.problem;
  EXPECT_DOUBLE_EQ(*expectation.busbw_gbps, *predicted.busbw_gbps);
  // Nine ranks on eight GPUs cannot be placed.
  row.nranks = 9;
  EXPECT_FALSE(model.expect(row, std::vector<std::string>(9, "node00001")).busbw_gbps);
}

TEST(RowExpectationGpus, OneProcessDrivingAllGpusIsExpectedSevenLaunchesSlower) {
  const Graph graph = test::parse_sample("dgx_h100_pod.yaml");
  ExpectationModel model(graph);
  ResultRow row;
  row.backend = "nccl-tests";
  row.op = "all_reduce";
  row.nranks = 8;
  row.bytes = 8;
  const std::vector<std::string> hosts(8, "node00001");
  // busbw = bytes / time x 2(n-1)/n: the time each expectation stands for.
  const auto expected_time_us = [&](const Expectation& e) { return 8 * 1.75 / (e.busbw_gbps.value() * 1e3); };
  const double per_gpu_us = expected_time_us(model.expect(row, hosts));
  const Expectation per_node = model.expect(row, hosts, {}, newest_nccl_tuning(), 8);
  EXPECT_NEAR(expected_time_us(per_node) - per_gpu_us, 7 * 1.422, 1e-6);
  EXPECT_EQ(per_node.choice.protocol, "LL");
  // GPUs per process that do not divide a host's ranks: the row's problem.
  const Expectation uneven = model.expect(row, hosts, {}, newest_nccl_tuning(), 3);
  EXPECT_FALSE(uneven.busbw_gbps);
  EXPECT_NE(uneven.problem.find("3 GPUs per process do not divide the 8 ranks on node00001"), std::string::npos)
      << uneven.problem;
}

TEST(RowExpectationGpus, TheRunsNcclAlgoAndProtoDecideWhatIsExpected) {
  const Graph graph = test::parse_sample("dgx_h100_pod.yaml");
  ExpectationModel model(graph);
  ResultRow row;
  row.run_id = "forced";
  row.backend = "nccl-tests";
  row.op = "all_reduce";
  row.nranks = 8;
  row.bytes = std::uint64_t{1} << 30;
  const std::vector<std::string> hosts(8, "node00001");
  const Expectation chosen = model.expect(row, hosts);
  EXPECT_EQ(chosen.choice.algorithm, "nvls");
  const Forced ring = forced_by_environment({{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}});
  const Expectation forced = model.expect(row, hosts, ring);
  EXPECT_EQ(forced.choice.algorithm, "ring");
  EXPECT_EQ(forced.choice.protocol, "Simple");
  ASSERT_TRUE(forced.busbw_gbps && chosen.busbw_gbps);
  EXPECT_LT(*forced.busbw_gbps, *chosen.busbw_gbps);
  // A list leaves NCCL a choice: nothing forced.
  EXPECT_FALSE(forced_by_environment({{"NCCL_ALGO", "Ring,Tree"}}).algorithm);
  // An algorithm that cannot run here is the row's problem, not an exception.
  const Expectation impossible = model.expect(row, hosts, {Algorithm::nvls_tree, std::nullopt});
  EXPECT_FALSE(impossible.busbw_gbps);
  EXPECT_NE(impossible.problem.find("run forced: nvls_tree cannot run all_reduce"), std::string::npos)
      << impossible.problem;
}

}  // namespace
}  // namespace fb::topo
