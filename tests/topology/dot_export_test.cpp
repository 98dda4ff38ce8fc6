#include "topology/dot_export.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace fb::topo {
namespace {

TEST(DotExport, FlaggedLinksAreRedAndNamesAreEscaped) {
  Graph graph;
  const VertexId host = graph.add_vertex(VertexKind::host, "node\"1");
  const VertexId nic = graph.add_vertex(VertexKind::nic, "node\"1/mlx5_0", host, 0);
  const VertexId leaf = graph.add_vertex(VertexKind::fabric_switch, "leaf1");
  graph.set_tier(leaf, SwitchTier::leaf);
  const LinkId cable = graph.add_link(nic, leaf, *infiniband(4, "NDR"));
  std::ostringstream healthy;
  write_dot(healthy, graph, {});
  EXPECT_EQ(healthy.str().find("color=red"), std::string::npos);
  EXPECT_NE(healthy.str().find("subgraph \"cluster_node\\\"1\""), std::string::npos);
  std::ostringstream flagged;
  const std::vector<LinkId> blocking{cable};
  write_dot(flagged, graph, blocking);
  EXPECT_NE(flagged.str().find("\"node\\\"1/mlx5_0\" -- \"leaf1\" [label=\"InfiniBand 50 GB/s x4\", color=red"),
            std::string::npos);
  EXPECT_EQ(flagged.str().rfind("graph fabric {", 0), 0u);
}

}  // namespace
}  // namespace fb::topo
