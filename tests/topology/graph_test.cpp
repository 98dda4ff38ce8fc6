#include "topology/graph.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <vector>

namespace fb::topo {
namespace {

const LinkSpec cable{LinkType::infiniband, "IB NDR", 4, 50.0, 50.0, 0.6};

// The name index starts at 16 slots and doubles at half full: 1,000 switches make it grow six
// times, and every name must still lead to its own vertex, a repeat to the same one.
TEST(Graph, NamesFindTheirVerticesAcrossGrowthOfTheIndex) {
  Graph graph;
  EXPECT_EQ(graph.find("sw0"), no_vertex);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(graph.add_vertex(VertexKind::fabric_switch, fmt::format("sw{}", i)), static_cast<VertexId>(i));
  }
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(graph.find(fmt::format("sw{}", i)), static_cast<VertexId>(i));
  EXPECT_EQ(graph.add_vertex(VertexKind::fabric_switch, "sw517"), 517u);
  EXPECT_EQ(graph.vertex_count(), 1000u);
  EXPECT_EQ(graph.find("sw1000"), no_vertex);
  EXPECT_EQ(graph.find("sw"), no_vertex);
  EXPECT_THROW(graph.add_vertex(VertexKind::host, "sw999"), GraphContradiction);
  EXPECT_EQ(graph.vertex_count(), 1000u);
}

// links_of is indexed at the first call; links added after it must appear at the next call, in
// the order they were added, a link between a vertex and itself twice.
TEST(Graph, LinksAddedAfterAQueryAppearInOrder) {
  Graph graph;
  const VertexId a = graph.add_vertex(VertexKind::fabric_switch, "a");
  const VertexId b = graph.add_vertex(VertexKind::fabric_switch, "b");
  const LinkId ab = graph.add_link(a, b, cable);
  EXPECT_EQ(std::vector<LinkId>(graph.links_of(a).begin(), graph.links_of(a).end()), std::vector<LinkId>{ab});
  const VertexId c = graph.add_vertex(VertexKind::fabric_switch, "c");
  EXPECT_TRUE(graph.links_of(c).empty());
  const LinkId ca = graph.add_link(c, a, cable);
  const LinkId ba = graph.add_link(b, a, cable);
  const LinkId aa = graph.add_link(a, a, cable);
  EXPECT_EQ(std::vector<LinkId>(graph.links_of(a).begin(), graph.links_of(a).end()),
            (std::vector<LinkId>{ab, ca, ba, aa, aa}));
  EXPECT_EQ(graph.find_link(c, a), ca);
  EXPECT_EQ(graph.find_link(b, a), ab);
  EXPECT_FALSE(graph.find_link(b, c));
}

// Devices of hosts created interleaved, and a host added after devices_of was first asked.
TEST(Graph, DevicesOfAHostInCreationOrder) {
  Graph graph;
  const VertexId h1 = graph.add_vertex(VertexKind::host, "h1");
  const VertexId h2 = graph.add_vertex(VertexKind::host, "h2");
  const VertexId g1 = graph.add_vertex(VertexKind::gpu, "h1/GPU0", h1, 0);
  const VertexId g2 = graph.add_vertex(VertexKind::gpu, "h2/GPU0", h2, 0);
  const VertexId n1 = graph.add_vertex(VertexKind::nic, "h1/mlx5_0", h1, 0);
  graph.add_vertex(VertexKind::fabric_switch, "leaf");
  EXPECT_EQ(std::vector<VertexId>(graph.devices_of(h1).begin(), graph.devices_of(h1).end()),
            (std::vector<VertexId>{g1, n1}));
  EXPECT_EQ(std::vector<VertexId>(graph.devices_of(h2).begin(), graph.devices_of(h2).end()), std::vector<VertexId>{g2});
  const VertexId h3 = graph.add_vertex(VertexKind::host, "h3");
  const VertexId g3 = graph.add_vertex(VertexKind::gpu, "h3/GPU0", h3, 0);
  EXPECT_EQ(std::vector<VertexId>(graph.devices_of(h3).begin(), graph.devices_of(h3).end()), std::vector<VertexId>{g3});
  EXPECT_TRUE(graph.devices_of(graph.find("leaf")).empty());
}

// A merge keeps a link both graphs have once, and every parallel link of the merged graph.
TEST(Graph, MergeKeepsEarlierLinksOnceAndParallelNewOnes) {
  Graph fabric;
  const VertexId leaf = fabric.add_vertex(VertexKind::fabric_switch, "leaf");
  const VertexId spine = fabric.add_vertex(VertexKind::fabric_switch, "spine");
  fabric.add_link(leaf, spine, cable);
  Graph other;
  const VertexId other_leaf = other.add_vertex(VertexKind::fabric_switch, "leaf");
  const VertexId other_spine = other.add_vertex(VertexKind::fabric_switch, "spine");
  const VertexId core = other.add_vertex(VertexKind::fabric_switch, "core");
  other.add_link(other_leaf, other_spine, cable);
  other.add_link(other_spine, core, cable);
  other.add_link(other_spine, core, cable);
  fabric.merge(other);
  EXPECT_EQ(fabric.link_count(), 3u);
  EXPECT_EQ(fabric.links_of(leaf).size(), 1u);
  EXPECT_EQ(fabric.links_of(spine).size(), 3u);
  EXPECT_EQ(fabric.links_of(fabric.find("core")).size(), 2u);
}

}  // namespace
}  // namespace fb::topo
