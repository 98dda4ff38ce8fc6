#include "topology/analysis.hpp"

#include "common/errors.hpp"
#include "test_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace fb::topo {
namespace {

// Hand-computed example: the sample pod has 32 nodes x 8 NICs x 50 GB/s on 8 leaves of 32 down
// and 16 up ports (4xNDR, 50 GB/s each) under 16 spines.
class DgxPod : public ::testing::Test {
 protected:
  Graph graph = test::parse_sample("dgx_h100_pod.yaml");
};

TEST_F(DgxPod, LeafOversubscriptionIsTwoToOne) {
  const OversubscriptionReport report = analyze_oversubscription(graph);
  ASSERT_EQ(report.tiers.size(), 2u);
  const TierOversubscription& leaf = report.tiers[0];
  EXPECT_EQ(leaf.tier, SwitchTier::leaf);
  EXPECT_EQ(leaf.switch_count, 8u);
  EXPECT_DOUBLE_EQ(leaf.downlink_gbps, 8 * 32 * 50.0);
  EXPECT_DOUBLE_EQ(leaf.uplink_gbps, 8 * 16 * 50.0);
  EXPECT_DOUBLE_EQ(*leaf.oversubscription_ratio, 2.0);
  EXPECT_DOUBLE_EQ(*leaf.worst_switch_ratio, 2.0);
  const TierOversubscription& spine = report.tiers[1];
  EXPECT_EQ(spine.tier, SwitchTier::spine);
  EXPECT_FALSE(spine.oversubscription_ratio);  // the top tier has no uplinks
  EXPECT_DOUBLE_EQ(spine.downlink_gbps, 16 * 8 * 50.0);
}

TEST_F(DgxPod, AllToAllSaturatesEveryLeafUplinkAtTheMaxMinRate) {
  FabricHierarchy fabric(graph);
  const PatternAnalysis analysis = analyze_pattern(fabric, TrafficPattern::all_to_all);
  EXPECT_EQ(analysis.host_count, 32u);
  // Inter-leaf flows: 4 hosts x 28 remote hosts share 16 x 50 GB/s of uplinks -> 800/112 each.
  EXPECT_NEAR(analysis.min_flow_rate_gbps, 800.0 / 112.0, 1e-9);
  // Intra-leaf flows then fill each host's 400 GB/s: (400 - 28 x 800/112) / 3 each.
  const double inter = 32.0 * 28.0 * 800.0 / 112.0;
  const double intra = 32.0 * 3.0 * (400.0 - 28.0 * 800.0 / 112.0) / 3.0;
  EXPECT_NEAR(analysis.achieved_gbps, inter + intra, 1e-6);
  EXPECT_NEAR(analysis.offered_gbps, 32.0 * 400.0, 1e-6);
  // Without the 2:1 leaves each host's 31 flows share its 400 GB/s alone: the pattern takes
  // (400/31) / (800/112) = 1.806x as long on this fabric, held by a leaf's uplinks.
  EXPECT_NEAR(analysis.nonblocking_min_flow_rate_gbps, 400.0 / 31.0, 1e-9);
  EXPECT_NEAR(analysis.completion_time_ratio, (400.0 / 31.0) / (800.0 / 112.0), 1e-9);
  EXPECT_THAT(analysis.slowest_flow_limit, ::testing::MatchesRegex("leaf000[1-8] uplinks \\(800\\.0 GB/s\\)"));
  // Every leaf uplink, both directions, is blocking; offered load per link is
  // 4 hosts x 28 destinations x 400/31 GB/s over 16 links.
  ASSERT_EQ(analysis.blocking.size(), 8u * 16u * 2u);
  for (const SaturatedLink& finding : analysis.blocking) {
    EXPECT_DOUBLE_EQ(finding.capacity_gbps, 50.0);
    EXPECT_NEAR(finding.expected_load_gbps, 4.0 * 28.0 * 400.0 / 31.0 / 16.0, 1e-9);
    const bool leaf_to_spine =
        graph.vertex(finding.from).tier == SwitchTier::leaf && graph.vertex(finding.to).tier == SwitchTier::spine;
    const bool spine_to_leaf =
        graph.vertex(finding.from).tier == SwitchTier::spine && graph.vertex(finding.to).tier == SwitchTier::leaf;
    EXPECT_TRUE(leaf_to_spine || spine_to_leaf);
  }
  const nlohmann::json json = to_json(graph, analysis);
  EXPECT_EQ(json["findings"].size(), 256u);
  EXPECT_EQ(json["findings"][0]["kind"], "blocking");
}

TEST_F(DgxPod, RingBetweenHostsIsNotBlocking) {
  FabricHierarchy fabric(graph);
  const PatternAnalysis analysis = analyze_pattern(fabric, TrafficPattern::ring);
  EXPECT_EQ(analysis.flow_classes, 32u);
  EXPECT_TRUE(analysis.blocking.empty());
  EXPECT_NEAR(analysis.min_flow_rate_gbps, 400.0, 1e-9);
  // Nothing in the fabric holds a ring back: it completes as on a non-blocking fabric.
  EXPECT_DOUBLE_EQ(analysis.completion_time_ratio, 1.0);
  EXPECT_THAT(analysis.slowest_flow_limit, ::testing::HasSubstr("NIC ports"));
}

TEST_F(DgxPod, LeafToLeafIsLimitedByUplinks) {
  FabricHierarchy fabric(graph);
  const PatternAnalysis analysis = analyze_pattern(fabric, TrafficPattern::leaf_to_leaf);
  // 4 hosts x 400 GB/s try to leave each leaf through 800 GB/s of uplinks.
  EXPECT_NEAR(analysis.min_flow_rate_gbps, 200.0, 1e-9);
  EXPECT_EQ(analysis.blocking.size(), 8u * 16u * 2u);
}

TEST_F(DgxPod, BisectionBandwidthIsTheUplinkCapacityOfHalfTheLeaves) {
  FabricHierarchy fabric(graph);
  // 4 leaves on each side, each with 800 GB/s of uplinks.
  EXPECT_NEAR(bisection_bandwidth_gbps(fabric), 4 * 800.0, 1e-6);
}

TEST_F(DgxPod, HostPairBottleneckIsTheHostsNics) {
  FabricHierarchy fabric(graph);
  const std::vector<PairBandwidth> pairs = host_pair_bandwidths(fabric, 1000);
  ASSERT_EQ(pairs.size(), 32u * 31u / 2u);
  for (const PairBandwidth& pair : pairs) EXPECT_NEAR(pair.bottleneck_gbps, 400.0, 1e-9);
  EXPECT_THROW(host_pair_bandwidths(fabric, 10), InputError);
}

// Two leaves of four single-NIC hosts under two spines; one of leaf1's two uplinks is 4xHDR.
Graph degraded_two_leaf_fabric() {
  Graph graph;
  const LinkSpec ndr = *infiniband(4, "NDR");
  const LinkSpec hdr = *infiniband(4, "HDR");
  std::vector<VertexId> leaves;
  for (int l = 0; l < 2; ++l) {
    leaves.push_back(graph.add_vertex(VertexKind::fabric_switch, "leaf" + std::to_string(l + 1)));
    graph.set_tier(leaves.back(), SwitchTier::leaf);
  }
  std::vector<VertexId> spines;
  for (int s = 0; s < 2; ++s) {
    spines.push_back(graph.add_vertex(VertexKind::fabric_switch, "spine" + std::to_string(s + 1)));
    graph.set_tier(spines.back(), SwitchTier::spine);
  }
  for (int h = 0; h < 8; ++h) {
    const std::string name = "h" + std::to_string(h);
    const VertexId host = graph.add_vertex(VertexKind::host, name);
    const VertexId nic = graph.add_vertex(VertexKind::nic, name + "/mlx5_0", host, 0);
    graph.add_link(nic, leaves[h / 4], ndr);
  }
  graph.add_link(leaves[0], spines[0], ndr);
  graph.add_link(leaves[0], spines[1], hdr);
  graph.add_link(leaves[1], spines[0], ndr);
  graph.add_link(leaves[1], spines[1], ndr);
  return graph;
}

TEST(Oversubscription, HandComputedPerSwitchRatios) {
  const Graph graph = degraded_two_leaf_fabric();
  const OversubscriptionReport report = analyze_oversubscription(graph);
  ASSERT_EQ(report.switches.size(), 4u);
  EXPECT_DOUBLE_EQ(*report.switches[0].oversubscription_ratio, 200.0 / 75.0);   // leaf1
  EXPECT_DOUBLE_EQ(*report.switches[1].oversubscription_ratio, 200.0 / 100.0);  // leaf2
  EXPECT_DOUBLE_EQ(*report.tiers[0].oversubscription_ratio, 400.0 / 175.0);
  EXPECT_DOUBLE_EQ(*report.tiers[0].worst_switch_ratio, 200.0 / 75.0);
}

TEST(Blocking, EcmpFillsTheWeakLinkOfABundleFirst) {
  const Graph graph = degraded_two_leaf_fabric();
  FabricHierarchy fabric(graph);
  const PatternAnalysis analysis = analyze_pattern(fabric, TrafficPattern::all_to_all);
  // Even hashing puts half of leaf1's 16 remote flows on the 25 GB/s link: 16 r / 2 = 25.
  EXPECT_NEAR(analysis.min_flow_rate_gbps, 3.125, 1e-12);
  ASSERT_EQ(analysis.blocking.size(), 2u);  // the HDR link, up and down
  for (const SaturatedLink& finding : analysis.blocking) {
    EXPECT_EQ(graph.link(finding.link).spec.technology, "IB HDR");
    EXPECT_DOUBLE_EQ(finding.capacity_gbps, 25.0);
    // Offered: 16 flows at 50/7 GB/s each, half of them on this link.
    EXPECT_NEAR(finding.expected_load_gbps, 16.0 * 50.0 / 7.0 / 2.0, 1e-9);
  }
  EXPECT_EQ(graph.vertex(analysis.blocking[0].from).name == "leaf1" ||
                graph.vertex(analysis.blocking[1].from).name == "leaf1",
            true);
}

}  // namespace
}  // namespace fb::topo
