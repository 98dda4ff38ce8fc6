#include "topology/cluster_spec.hpp"

#include "test_support.hpp"

#include "common/errors.hpp"

#include <gtest/gtest.h>

namespace fb::topo {
namespace {

using test::count_kind;
using test::count_links;

TEST(ClusterSpecYaml, DgxPodBuildsNodesAndTwoTierFatTree) {
  const Graph graph = test::parse_sample("dgx_h100_pod.yaml");
  EXPECT_EQ(count_kind(graph, VertexKind::host), 32u);
  EXPECT_EQ(count_kind(graph, VertexKind::gpu), 256u);
  EXPECT_EQ(count_kind(graph, VertexKind::nic), 256u);
  EXPECT_EQ(count_kind(graph, VertexKind::nvswitch), 128u);
  // Leaf radix 48 at 2:1 is 32 down, 16 up: 4 nodes per leaf, 8 leaves, 16 spines.
  EXPECT_EQ(count_kind(graph, VertexKind::fabric_switch), 8u + 16u);
  EXPECT_EQ(count_links(graph, LinkType::infiniband), 256u + 8u * 16u);
  // 18 NVLinks per GPU over 4 NVSwitches: bonds of 5, 5, 4, 4.
  const VertexId gpu = graph.find("node00001/GPU0");
  ASSERT_NE(gpu, no_vertex);
  double nvlink_gbps = 0;
  for (const LinkId l : graph.links_of(gpu)) {
    if (graph.link(l).spec.type == LinkType::nvlink) nvlink_gbps += graph.link(l).spec.capacity_gbps;
  }
  EXPECT_DOUBLE_EQ(nvlink_gbps, 18 * 20.6);  // NVLink4's effective rate, 25 GB/s per lane on the datasheet
  EXPECT_EQ(graph.vertex(graph.find("leaf0001")).tier, SwitchTier::leaf);
  EXPECT_EQ(graph.vertex(graph.find("spine0016")).tier, SwitchTier::spine);
}

TEST(ClusterSpecYaml, PcieBoxHasNoNvlinkAndNoFabric) {
  const Graph graph = test::parse_sample("pcie_box.yaml");
  EXPECT_EQ(count_kind(graph, VertexKind::gpu), 8u);
  EXPECT_EQ(count_links(graph, LinkType::nvlink), 0u);
  EXPECT_EQ(count_kind(graph, VertexKind::fabric_switch), 0u);
  EXPECT_EQ(count_links(graph, LinkType::smp), 1u);
}

TEST(ClusterSpecBuilder, ThreeTierPodsAndCoreGroups) {
  ClusterSpec spec;
  spec.node.count = 64;
  spec.node.nics = 1;
  spec.node.nic_link = *infiniband(4, "NDR");
  spec.fabric.switch_link = *infiniband(4, "NDR");
  spec.fabric.tiers = {{SwitchTier::leaf, 8, 1.0}, {SwitchTier::spine, 8, 1.0}, {SwitchTier::core, 8, 1.0}};
  const Graph graph = build_cluster(spec);
  // Leaves: 4 down, 4 up -> 16 leaves; pods of 4 leaves -> 4 pods x 4 spines; 4 x 4 cores.
  std::size_t leaves = 0, spines = 0, cores = 0;
  for (const Vertex& v : graph.vertices()) {
    leaves += v.tier == SwitchTier::leaf;
    spines += v.tier == SwitchTier::spine;
    cores += v.tier == SwitchTier::core;
  }
  EXPECT_EQ(leaves, 16u);
  EXPECT_EQ(spines, 16u);
  EXPECT_EQ(cores, 16u);
  EXPECT_EQ(graph.links_of(graph.find("core0001")).size(), 4u);  // one cable per pod
}

// docs/examples/h100-128-taper2.yaml: a 64-port leaf at 2:1 splits 43 down, 21 up, and takes
// whole nodes of 8 NIC ports, so a full leaf is cabled 40:21, and the graph says so; a 1:1 leaf
// (32 down, 4 nodes) is cabled as asked and says nothing.
TEST(ClusterSpecBuilder, ALeafCabledAtAnotherRatioThanTheSpecSaysWhy) {
  const auto h100_128 = [](double ratio) {
    ClusterSpec spec;
    spec.node.count = 128;
    spec.node.nic_link = *infiniband(4, "NDR");
    spec.fabric.tiers = {{SwitchTier::leaf, 64, ratio}, {SwitchTier::spine, 64, 1.0}};
    spec.fabric.switch_link = spec.node.nic_link;
    return build_cluster(spec);
  };
  const Graph tapered = h100_128(2.0);
  ASSERT_EQ(tapered.assumptions().size(), 1u);
  EXPECT_EQ(tapered.assumptions()[0],
            "the spec's 2:1 leaves are cabled 40:21 = 1.90:1: 64 ports at 2:1 split into 43 down and 21 up, and a leaf "
            "takes whole nodes: 5 x 8 NIC ports; the last leaf holds 3 nodes");
  EXPECT_TRUE(h100_128(1.0).assumptions().empty());
}

TEST(ClusterSpecBuilder, RejectsARadixTooSmallForTheNodes) {
  ClusterSpec spec;
  spec.node.count = 100;
  spec.node.nic_link = *infiniband(4, "NDR");
  spec.fabric.switch_link = *infiniband(4, "NDR");
  spec.fabric.tiers = {{SwitchTier::leaf, 64, 1.0}, {SwitchTier::spine, 8, 1.0}};
  EXPECT_THROW(build_cluster(spec), InputError);
}

TEST(ClusterSpecYaml, NegativeRadixNamesFileAndLine) {
  const std::string text =
      "node:\n  count: 4\n  nics: {count: 1, link: 4xNDR}\nfabric:\n  tiers:\n    - {name: leaf, radix: -8}\n";
  try {
    parse_topology(SourceText{"bad.yaml", text}, "cluster-yaml");
    FAIL() << "a negative radix was accepted";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(), "bad.yaml:6: expected radix as an integer of at least 2, got '-8'");
  }
}

TEST(ClusterSpecYaml, HostsNameTheNodesAsTheResultsDo) {
  const Graph graph = test::parse_sample("ethernet_pair.yaml");
  EXPECT_EQ(count_kind(graph, VertexKind::host), 2u);
  EXPECT_EQ(graph.vertex(graph.find("node1")).kind, VertexKind::host);
  EXPECT_NE(graph.find("node2/CPU1"), no_vertex);
  EXPECT_EQ(graph.find("node00001"), no_vertex);
  try {
    parse_topology(SourceText{"count.yaml", "node:\n  hosts: \"a,b\"\n  count: 3\n"}, "cluster-yaml");
    FAIL() << "3 nodes with 2 names were accepted";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(), "count.yaml:2: expected a cluster that can be built, got node.hosts names 2 hosts, "
                               "node.count is 3");
  }
  EXPECT_THROW(parse_topology(SourceText{"range.yaml", "node:\n  hosts: \"n[3-\"\n"}, "cluster-yaml"), InputError);
}

TEST(ClusterSpecYaml, UnknownKeyAndUnknownLinkAreInputErrors) {
  EXPECT_THROW(parse_topology(SourceText{"a.yaml", "node:\n  count: 2\n  gpu: 8\n"}, "cluster-yaml"), InputError);
  EXPECT_THROW(parse_topology(SourceText{"b.yaml", "node:\n  nics: {count: 1, link: 4xWARP}\n"}, "cluster-yaml"),
               InputError);
  EXPECT_THROW(parse_topology(SourceText{"c.yaml", "node: [\n"}, "cluster-yaml"), InputError);
}

}  // namespace
}  // namespace fb::topo
