#include "topology/routing.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

namespace fb::topo {
namespace {

TEST(Routing, GpusBehindNvswitchesUseAllFourNvlinkBonds) {
  const Graph graph = test::parse_sample("dgx_h100_pod.yaml");
  const auto route = find_route(graph, graph.find("node00001/GPU0"), graph.find("node00001/GPU5"));
  ASSERT_TRUE(route);
  EXPECT_EQ(route->hop_count, 2);
  for (const LinkUse& use : route->uses) EXPECT_EQ(graph.link(use.link).spec.type, LinkType::nvlink);
  EXPECT_DOUBLE_EQ(route->bottleneck_gbps, 18 * 20.6);
  EXPECT_EQ(route->uses.size(), 8u);  // 4 bonds out of GPU0, 4 into GPU5
}

TEST(Routing, PcieGpusMeetAtTheirSwitchOrCrossTheSmpLink) {
  const Graph graph = test::parse_sample("pcie_box.yaml");
  // GPUs 0-3 share PCIe switch 0 on CPU0; GPUs 4-7 are on switch 1 on CPU1.
  const auto same_switch = find_route(graph, graph.find("node00001/GPU0"), graph.find("node00001/GPU1"));
  ASSERT_TRUE(same_switch);
  EXPECT_EQ(same_switch->hop_count, 2);
  EXPECT_DOUBLE_EQ(same_switch->bottleneck_gbps, 24.0);
  const auto across = find_route(graph, graph.find("node00001/GPU0"), graph.find("node00001/GPU7"));
  ASSERT_TRUE(across);
  EXPECT_EQ(across->hop_count, 5);  // GPU, switch, CPU0, CPU1, switch, GPU
  bool crosses_smp = false;
  for (const LinkUse& use : across->uses) crosses_smp |= graph.link(use.link).spec.type == LinkType::smp;
  EXPECT_TRUE(crosses_smp);
  EXPECT_DOUBLE_EQ(across->bottleneck_gbps, 22.0);  // Sapphire Rapids UPI, NCCL's constant
}

TEST(Routing, InterNodeRoutesGoUpThenDownAndSpreadOverSpines) {
  const Graph graph = test::parse_sample("dgx_h100_pod.yaml");
  // node00001 is on leaf0001, node00005 on leaf0002: GPU -> PCIe -> NIC -> leaf -> 16 spines -> leaf.
  const auto route = find_route(graph, graph.find("node00001/GPU0"), graph.find("node00005/GPU0"));
  ASSERT_TRUE(route);
  EXPECT_EQ(route->hop_count, 8);
  int spine_links = 0;
  for (const LinkUse& use : route->uses) {
    const Link& link = graph.link(use.link);
    const bool touches_spine =
        graph.vertex(link.a).tier == SwitchTier::spine || graph.vertex(link.b).tier == SwitchTier::spine;
    if (touches_spine) {
      ++spine_links;
      EXPECT_NEAR(use.fraction, 1.0 / 16.0, 1e-12);
    }
  }
  EXPECT_EQ(spine_links, 32);
  // Bottleneck: the GPU's PCIe Gen5 x16 link to the switch its NIC hangs off.
  EXPECT_DOUBLE_EQ(route->bottleneck_gbps, 48.0);
}

TEST(Routing, NearestNicSharesThePcieSwitchAndSpreadsItsGpus) {
  const Graph graph = test::parse_sample("dgx_h100_pod.yaml");
  EXPECT_EQ(nearest_nic(graph, graph.find("node00001/GPU0")), graph.find("node00001/mlx5_0"));
  EXPECT_EQ(nearest_nic(graph, graph.find("node00001/GPU1")), graph.find("node00001/mlx5_1"));
  EXPECT_EQ(nearest_nic(graph, graph.find("node00001/GPU3")), graph.find("node00001/mlx5_3"));
}

TEST(Routing, NoRouteToSelf) {
  const Graph graph = test::parse_sample("pcie_box.yaml");
  EXPECT_FALSE(find_route(graph, graph.find("node00001/GPU0"), graph.find("node00001/GPU0")));
}

}  // namespace
}  // namespace fb::topo
