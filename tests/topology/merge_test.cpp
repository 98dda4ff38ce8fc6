#include "topology/analysis.hpp"
#include "topology/format_registry.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

namespace fb::topo {
namespace {

using test::count_kind;

TEST(Merge, PerNodeMatrixAndIbnetdiscoverMeetAtTheNics) {
  const Graph graph = load_topology({test::sample_path("dgx01.topo"), test::sample_path("fabric.ibnet")});
  EXPECT_EQ(count_kind(graph, VertexKind::host), 4u);
  EXPECT_EQ(count_kind(graph, VertexKind::gpu), 8u);
  // dgx01's mlx5_0 is one vertex: behind its PCIe switch on one side, cabled to leaf01 on the other.
  const VertexId nic = graph.find("dgx01/mlx5_0");
  ASSERT_NE(nic, no_vertex);
  EXPECT_EQ(graph.vertex(nic).host, graph.find("dgx01"));
  EXPECT_TRUE(graph.find_link(nic, graph.find("leaf01")));
  bool behind_pcie_switch = false;
  for (const LinkId l : graph.links_of(nic)) {
    behind_pcie_switch |= graph.vertex(graph.link(l).other_end(nic)).kind == VertexKind::pcie_switch;
  }
  EXPECT_TRUE(behind_pcie_switch);
}

TEST(Merge, StatedCapacitiesReplaceNominalOnes) {
  Graph merged = load_topology({test::sample_path("topology.conf"), test::sample_path("fabric.ibnet")});
  const auto uplink = merged.find_link(merged.find("leaf01"), merged.find("spine01"));
  ASSERT_TRUE(uplink);
  EXPECT_FALSE(merged.link(*uplink).nominal_capacity);
  // The Slurm host links stand in for NICs only where none are known, so hosts are not counted twice.
  FabricHierarchy fabric(merged);
  ASSERT_EQ(fabric.hosts().size(), 4u);
  EXPECT_DOUBLE_EQ(fabric.resource_capacity_gbps()[0], 2 * 50.0);
}

TEST(Merge, ContradictoryKindsAreInputErrors) {
  Graph a;
  a.add_vertex(VertexKind::fabric_switch, "x");
  Graph b;
  b.add_vertex(VertexKind::host, "x");
  EXPECT_THROW(a.merge(b), GraphContradiction);
}

TEST(Merge, IbFabricAnalysisFindsTheTwoToOneLeaves) {
  const Graph graph = load_topology({test::sample_path("fabric.ibnet")});
  const OversubscriptionReport report = analyze_oversubscription(graph);
  ASSERT_FALSE(report.tiers.empty());
  EXPECT_DOUBLE_EQ(*report.tiers[0].oversubscription_ratio, 2.0);
  FabricHierarchy fabric(graph);
  const PatternAnalysis analysis = analyze_pattern(fabric, TrafficPattern::all_to_all);
  EXPECT_EQ(analysis.blocking.size(), 8u);  // 4 leaf-spine cables, both directions
}

}  // namespace
}  // namespace fb::topo
