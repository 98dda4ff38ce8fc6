// Hosts whose GPUs cannot fill their NIC ports: each GPU sends through its nearest NIC at once,
// max-min fair over the links inside the host, against what the ports carry for collectives.

#include "topology/host_injection.hpp"

#include "topology/cluster_spec.hpp"

#include <gtest/gtest.h>

namespace fb::topo {
namespace {

// Nodes of 8 H100 (PCIe Gen5 x16: NCCL's 48 GB/s) on a two-tier fat tree of the NICs' own rate.
ClusterSpec h100_nodes(int nodes, int nics, double nic_mbps) {
  ClusterSpec spec;
  spec.node.count = nodes;
  spec.node.nics = nics;
  spec.node.nic_link = *network_by_rate(LinkType::roce, nic_mbps);
  spec.fabric.tiers = {{SwitchTier::leaf, 64, 1.0}, {SwitchTier::spine, 64, 1.0}};
  spec.fabric.switch_link = spec.node.nic_link;
  return spec;
}

TEST(HostInjection, EightHundredGigNicsBehindPcieGenFiveAreReachedAtPcieRate) {
  const Graph graph = build_cluster(h100_nodes(4, 8, 800000));
  const FabricHierarchy fabric(graph);
  const std::vector<HostInjection> shortfalls = injection_shortfalls(graph, fabric);
  ASSERT_EQ(shortfalls.size(), 1u);  // four hosts built alike: one entry
  const HostInjection& host = shortfalls.front();
  EXPECT_EQ(graph.vertex(host.host).name, "node00001");
  EXPECT_EQ(host.hosts, 4u);
  EXPECT_DOUBLE_EQ(host.port_gbps, 8 * 100.0);
  EXPECT_NEAR(host.port_collective_gbps, 8 * 92.0, 1e-9);  // RoCE verbs: 92% of the line rate
  EXPECT_NEAR(host.reachable_gbps, 8 * 48.0, 1e-9);
  EXPECT_NE(describe_direction(graph, host.limit, host.limit_from_a).find("(PCIe Gen5 x16, 48.0 GB/s)"),
            std::string::npos)
      << describe_direction(graph, host.limit, host.limit_from_a);
}

TEST(HostInjection, FourHundredGigNicsAreNotShortOfTheirPcie) {
  // 400G RoCE sustains 46 GB/s for collectives, under PCIe Gen5's 48: the ports are the limit.
  const Graph graph = build_cluster(h100_nodes(2, 8, 400000));
  EXPECT_TRUE(injection_shortfalls(graph, FabricHierarchy(graph)).empty());
}

TEST(HostInjection, TwoGpusSharingANicsPcieLinkShareItsRate) {
  // 4 NICs, one per PCIe switch with two GPUs: both GPUs' traffic crosses the switch's one link to
  // the NIC, so each NIC is reached at 48 GB/s, not 2 x 48 (which would fill its 92).
  const Graph graph = build_cluster(h100_nodes(2, 4, 800000));
  const std::vector<HostInjection> shortfalls = injection_shortfalls(graph, FabricHierarchy(graph));
  ASSERT_EQ(shortfalls.size(), 1u);
  EXPECT_NEAR(shortfalls.front().reachable_gbps, 4 * 48.0, 1e-9);
  EXPECT_NEAR(shortfalls.front().port_collective_gbps, 4 * 92.0, 1e-9);
}

}  // namespace
}  // namespace fb::topo
