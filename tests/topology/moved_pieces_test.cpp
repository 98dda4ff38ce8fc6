// Pieces that read another piece's shares moved (PieceRange: paths inside hosts built alike,
// climbs of hosts cabled alike) solve exactly as copies of those shares, and HostRoutes says which
// hosts' inside links are their shape's first host's moved alike.
#include "topology/cluster_spec.hpp"
#include "topology/flow_model.hpp"
#include "topology/graph.hpp"
#include "topology/host_routes.hpp"
#include "topology/link_technology.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

namespace fb::topo {
namespace {

// Resources 0-5: a 100, 30, 10, 40, 25 and 60 GB/s link.
const std::vector<double> capacity_gbps{100, 30, 10, 40, 25, 60};

TEST(MovedPieces, SolveBitForBitAsCopiesOfTheirShares) {
  // Piece 0 owns its shares (resources 0 and 1); piece 1 reads them moved by 2 (resources 2, 3);
  // piece 2 reads them with only the first moved, by 4 (resources 4, 1), as a climb moves its port.
  const std::vector<ResourceShare> template_shares{{0, 1.0}, {1, 0.5}};
  const std::vector<PieceRange> ranges{{0, 2, 0, 0}, {0, 2, 2, 2}, {0, 2, 4, 0}};
  // The same pieces with their shares copied out.
  const std::vector<ResourceShare> copied_shares{{0, 1.0}, {1, 0.5}, {2, 1.0}, {3, 0.5}, {4, 1.0}, {1, 0.5}};
  const std::vector<std::uint32_t> first_share{0, 2, 4, 6};
  // Flows: piece 0; piece 1; piece 2; pieces 1 and 2; piece 0 and 2.
  const std::vector<std::uint32_t> piece_of_use{0, 1, 2, 1, 2, 0, 2};
  const std::vector<std::uint32_t> first_use{0, 1, 2, 3, 5, 7};

  const PieceFlows moved{template_shares, {}, piece_of_use, first_use, {}, 1, ranges};
  const PieceFlows copied{copied_shares, first_share, piece_of_use, first_use, {}};
  ASSERT_EQ(moved.piece_count(), 3u);
  std::vector<ResourceShare> read;
  for (const ResourceShare& use : moved.shares_of(2)) read.push_back(use);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].resource, 4u);
  EXPECT_EQ(read[1].resource, 1u);
  std::vector<std::uint32_t> visited;
  moved.shares_of(1).for_each([&](const ResourceShare& use) { visited.push_back(use.resource); });
  EXPECT_EQ(visited, (std::vector<std::uint32_t>{2, 3}));
  EXPECT_TRUE(moved.shares_of(2).any_of([](const ResourceShare& use) { return use.resource == 1; }));
  EXPECT_FALSE(moved.shares_of(1).any_of([](const ResourceShare& use) { return use.resource == 1; }));

  PieceSolver moved_solver(capacity_gbps);
  PieceSolver copied_solver(capacity_gbps);
  const std::span<const double> moved_gbps = moved_solver.solve(moved);
  const std::span<const double> copied_gbps = copied_solver.solve(copied);
  EXPECT_EQ(std::vector<double>(moved_gbps.begin(), moved_gbps.end()),
            std::vector<double>(copied_gbps.begin(), copied_gbps.end()));
  for (std::uint32_t r = 0; r < capacity_gbps.size(); ++r) {
    EXPECT_EQ(moved_solver.load_gbps(r), copied_solver.load_gbps(r)) << "resource " << r;
    EXPECT_EQ(moved_solver.saturated(r), copied_solver.saturated(r)) << "resource " << r;
  }
  // Piece 2's first share lands on resource 4, not on its template's resource 0.
  EXPECT_GT(moved_solver.load_gbps(4), 0.0);
}

TEST(HostRoutes, HostsBuiltOneAfterAnotherAreTheirFirstHostMovedAlike) {
  ClusterSpec spec;
  spec.node.count = 3;
  spec.node.nic_link = *infiniband(4, "NDR");
  spec.fabric.switch_link = spec.node.nic_link;
  spec.fabric.tiers = {{SwitchTier::leaf, 64, 1.0}};
  const Graph graph = build_cluster(spec);
  std::vector<VertexId> hosts;
  for (VertexId v = 0; v < graph.vertex_count(); ++v)
    if (graph.vertex(v).kind == VertexKind::host) hosts.push_back(v);
  ASSERT_EQ(hosts.size(), 3u);
  const auto gpus_of = [&](VertexId host) {
    std::vector<VertexId> gpus;
    for (const VertexId d : graph.devices_of(host))
      if (graph.vertex(d).kind == VertexKind::gpu) gpus.push_back(d);
    return gpus;
  };

  HostRoutes routes(graph);
  const std::vector<VertexId> first = gpus_of(hosts[0]);
  const std::vector<VertexId> third = gpus_of(hosts[2]);
  ASSERT_EQ(first.size(), 8u);
  ASSERT_EQ(third.size(), 8u);
  const HostRoutes::Placement first_place = routes.placement(first[0], first[5]);
  const HostRoutes::Placement third_place = routes.placement(third[0], third[5]);
  EXPECT_TRUE(first_place.shifted_alike);
  EXPECT_TRUE(third_place.shifted_alike);
  EXPECT_EQ(first_place.link_shift, 0u);
  EXPECT_GT(third_place.link_shift, 0u);
  EXPECT_EQ(first_place.key, third_place.key);
  EXPECT_NE(routes.placement(first[0], first[6]).key, first_place.key);
  // Ends in two hosts have no template.
  EXPECT_EQ(routes.placement(first[0], third[5]).key, HostRoutes::no_template);

  // The third host's route is the first's, every link moved by the shift.
  std::vector<LinkUse> first_uses = routes.between(first[0], first[5])->uses;
  EXPECT_EQ(routes.last_template(), first_place.key);
  const std::vector<LinkUse> third_uses = routes.between(third[0], third[5])->uses;
  ASSERT_FALSE(first_uses.empty());
  ASSERT_EQ(first_uses.size(), third_uses.size());
  for (std::size_t k = 0; k < first_uses.size(); ++k) {
    EXPECT_EQ(third_uses[k].link, first_uses[k].link + third_place.link_shift);
    EXPECT_EQ(third_uses[k].from_a, first_uses[k].from_a);
    EXPECT_EQ(third_uses[k].fraction, first_uses[k].fraction);
  }
}

}  // namespace
}  // namespace fb::topo
