#include "topology/collective_model.hpp"

#include "topology/cluster_spec.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fb::topo {
namespace {

Graph one_dgx() {
  ClusterSpec spec;
  spec.node.count = 1;
  spec.node.nic_link = *infiniband(4, "NDR");
  return build_cluster(spec);
}

TEST(CollectiveModel, SingleNodeRingAllReduceMatchesTheClosedForm) {
  const Graph graph = one_dgx();
  const std::vector<VertexId> ranks = place_ranks(graph, 0, 0);
  ASSERT_EQ(ranks.size(), 8u);
  const RingModel model = model_rings(graph, ranks);
  EXPECT_EQ(model.rings, 1);
  // Each hop crosses GPU -> NVSwitch -> GPU: two NVLink hops of 0.3 us, 18 x 25 GB/s.
  const double alpha = 0.6;
  const double bandwidth = 450.0;
  EXPECT_NEAR(model.alpha_us, alpha, 1e-12);
  EXPECT_NEAR(model.step_bandwidth_gbps, bandwidth, 1e-9);
  const double p = 8;
  for (const std::uint64_t n : {std::uint64_t{8}, std::uint64_t{1} << 20, std::uint64_t{1} << 30}) {
    const double expected_us = 2 * (p - 1) * alpha + 2 * (p - 1) / p * static_cast<double>(n) / (bandwidth * 1e3);
    EXPECT_NEAR(predicted_time_us(model, CollectiveOp::all_reduce, CollectiveAlgorithm::ring, n), expected_us,
                1e-9 * expected_us);
    const double all_gather_us = (p - 1) * alpha + (p - 1) / p * static_cast<double>(n) / (bandwidth * 1e3);
    EXPECT_NEAR(predicted_time_us(model, CollectiveOp::all_gather, CollectiveAlgorithm::ring, n), all_gather_us,
                1e-9 * all_gather_us);
  }
}

TEST(CollectiveModel, TreesPayLogarithmicLatency) {
  const RingModel model{64, 8, 8, 8, 2.0, 384.0};
  // 2 ceil(log2 64) = 12 latency rounds against the ring's 2 x 63 = 126.
  EXPECT_NEAR(predicted_time_us(model, CollectiveOp::all_reduce, CollectiveAlgorithm::tree, 0), 12 * 2.0, 1e-12);
  EXPECT_NEAR(predicted_time_us(model, CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 0), 126 * 2.0, 1e-12);
  EXPECT_NEAR(predicted_time_us(model, CollectiveOp::reduce_scatter, CollectiveAlgorithm::tree, 0), 6 * 2.0, 1e-12);
}

TEST(CollectiveModel, TwoNodesUseOneRingPerNicLimitedByPcie) {
  const Graph graph = test::parse_sample("dgx_h100_pod.yaml");
  const RingModel model = model_rings(graph, place_ranks(graph, 2, 8));
  EXPECT_EQ(model.ranks, 16);
  EXPECT_EQ(model.nodes, 2);
  EXPECT_EQ(model.ranks_per_node, 8);
  EXPECT_EQ(model.rings, 8);
  // Each ring leaves through its own GPU's PCIe Gen5 x16 (48 GB/s) before its 50 GB/s NIC.
  EXPECT_NEAR(model.step_bandwidth_gbps, 8 * 48.0, 1e-9);
  // GPU -> PCIe switch -> NIC (2 x 0.5 us), NIC -> leaf -> NIC (2 x 0.3 us), NIC -> GPU (2 x 0.5 us).
  EXPECT_NEAR(model.alpha_us, 2.6, 1e-12);
}

TEST(CollectiveModel, PredictedRowHasNcclTestsSemantics) {
  const RingModel model{8, 1, 8, 1, 0.6, 450.0};
  const std::uint64_t bytes = 1 << 30;
  const ResultRow row = predicted_row(model, CollectiveOp::all_reduce, CollectiveAlgorithm::ring, bytes, "run", "t");
  EXPECT_EQ(row.backend, "model");
  EXPECT_EQ(row.op, "all_reduce");
  EXPECT_EQ(row.count, bytes / 4);
  const double time_us = predicted_time_us(model, CollectiveOp::all_reduce, CollectiveAlgorithm::ring, bytes);
  EXPECT_DOUBLE_EQ(row.time_median_us, time_us);
  EXPECT_DOUBLE_EQ(row.algbw_gbps, static_cast<double>(bytes) / time_us / 1e3);
  ASSERT_TRUE(row.busbw_gbps);
  EXPECT_DOUBLE_EQ(*row.busbw_gbps, row.algbw_gbps * 2 * 7 / 8.0);
  EXPECT_LT(*row.busbw_gbps, 450.0);
  const ResultRow gather = predicted_row(model, CollectiveOp::all_gather, CollectiveAlgorithm::ring, bytes, "run", "t");
  EXPECT_EQ(gather.count, bytes / 4 / 8);
  EXPECT_EQ(gather.redop, "none");
}

TEST(CollectiveModel, RejectsOneRankAndTooManyNodes) {
  const Graph graph = one_dgx();
  const std::vector<VertexId> one{graph.find("node00001/GPU0")};
  EXPECT_THROW(model_rings(graph, one), std::invalid_argument);
  EXPECT_THROW(place_ranks(graph, 2, 8), std::invalid_argument);
  EXPECT_THROW(place_ranks(graph, 1, 9), std::invalid_argument);
}

}  // namespace
}  // namespace fb::topo
