// Rail-optimized fabrics: the YAML layout, the fabric hierarchy's view of hosts whose NICs sit on
// several leaves, ibnetdiscover dumps of such fabrics, and the procurement numbers docs/model.md
// states for them.

#include "topology/analysis.hpp"
#include "common/text_file.hpp"
#include "topology/cluster_spec.hpp"
#include "topology/collective_model.hpp"
#include "topology/fabric_hierarchy.hpp"

#include "common/errors.hpp"
#include "rail_fabric_dump.hpp"
#include "test_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fb::topo {
namespace {

using test::count_kind;
using test::count_links;

constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

// N nodes of 8 H100 with 8x NDR, rail-optimized over these tiers (NDR cables between switches).
ClusterSpec rail_cluster(int nodes, std::vector<FabricTierSpec> tiers) {
  ClusterSpec spec;
  spec.node.count = nodes;
  spec.node.nic_link = *infiniband(4, "NDR");
  spec.fabric.switch_link = spec.node.nic_link;
  spec.fabric.layout = FabricLayout::rail_optimized;
  spec.fabric.tiers = std::move(tiers);
  return spec;
}

std::size_t count_tier(const Graph& graph, SwitchTier tier) {
  std::size_t count = 0;
  for (const Vertex& v : graph.vertices()) count += v.kind == VertexKind::fabric_switch && v.tier == tier ? 1 : 0;
  return count;
}

bool cabled(const Graph& graph, std::string_view a, std::string_view b) {
  return graph.find_link(graph.find(a), graph.find(b)).has_value();
}

std::string parse_error(const std::string& text) {
  try {
    parse_topology(SourceText{"rail.yaml", text}, "cluster-yaml");
  } catch (const InputError& error) { return error.what(); }
  return "accepted";
}

const std::string superpod_node =
    "node:\n  count: 64\n  gpus: 8\n  nvlink: {generation: 4, links_per_gpu: 18, nvswitches: 4}\n"
    "  pcie: {generation: 5, width: 16, switches: 4}\n  nics: {count: 8, link: 4xNDR}\n";

TEST(RailOptimizedSpec, SuperPodUnitsCableNicIToRailLeafI) {
  const Graph graph =
      parse_topology(SourceText{"pod.yaml", superpod_node +
                                                "fabric:\n  topology: rail_optimized\n  scalable_unit: 32\n  tiers:\n"
                                                "    - {name: leaf, radix: 64}\n    - {name: spine, radix: 64}\n"},
                     "cluster-yaml");
  // 2 units x 8 rails = 16 leaves of 32 down and 32 up ports; 32 spines, one cable to every leaf.
  EXPECT_EQ(count_tier(graph, SwitchTier::leaf), 16u);
  EXPECT_EQ(count_tier(graph, SwitchTier::spine), 32u);
  EXPECT_EQ(count_links(graph, LinkType::infiniband), 64u * 8u + 16u * 32u);
  EXPECT_TRUE(cabled(graph, "node00001/mlx5_3", "su01-rail3"));
  EXPECT_TRUE(cabled(graph, "node00032/mlx5_7", "su01-rail7"));
  EXPECT_TRUE(cabled(graph, "node00033/mlx5_0", "su02-rail0"));
  EXPECT_FALSE(cabled(graph, "node00001/mlx5_3", "su01-rail0"));
  EXPECT_EQ(graph.links_of(graph.find("su02-rail5")).size(), 32u + 32u);
  // The hosts of a unit are one group (they share the unit's rail leaves); a rail leaf reaches
  // another rail's leaf only through the spines.
  FabricHierarchy fabric(graph);
  const auto host = [&](std::string_view name) {
    const auto hosts = fabric.hosts();
    return static_cast<std::uint32_t>(std::find(hosts.begin(), hosts.end(), graph.find(name)) - hosts.begin());
  };
  EXPECT_EQ(fabric.groups()[*fabric.common_group(host("node00001"), host("node00032"))].level, 1);
  EXPECT_EQ(fabric.groups()[*fabric.common_group(host("node00001"), host("node00033"))].level, 2);
  EXPECT_EQ(fabric.switch_meeting_level(graph.find("su01-rail3"), graph.find("su01-rail3")), 1);
  EXPECT_EQ(fabric.switch_meeting_level(graph.find("su01-rail3"), graph.find("su01-rail4")), 2);
  EXPECT_EQ(fabric.switch_meeting_level(graph.find("su01-rail3"), graph.find("su02-rail3")), 2);
}

TEST(RailOptimizedSpec, LeavesTakeSeveralRailsWhenTheirPortsAllow) {
  ClusterSpec spec = rail_cluster(16, {{SwitchTier::leaf, 64, 1.0}, {SwitchTier::spine, 64, 1.0}});
  // One unit of 16 nodes; 32 down ports per leaf hold 2 rails of 16 nodes: 4 leaves.
  const Graph graph = build_cluster(spec);
  EXPECT_EQ(count_tier(graph, SwitchTier::leaf), 4u);
  EXPECT_TRUE(cabled(graph, "node00005/mlx5_2", "su01-rails2-3"));
  EXPECT_TRUE(cabled(graph, "node00005/mlx5_3", "su01-rails2-3"));
  EXPECT_TRUE(cabled(graph, "node00016/mlx5_7", "su01-rails6-7"));
  // One tier: a single unit's rail leaves, no spine; a second unit needs one.
  spec.fabric.tiers = {{SwitchTier::leaf, 64, 1.0}};
  spec.fabric.rails_per_leaf = 1;
  EXPECT_EQ(count_tier(build_cluster(spec), SwitchTier::leaf), 8u);
  spec.node.count = 80;
  EXPECT_THROW(build_cluster(spec), InputError);
}

TEST(RailOptimizedSpec, UnderACoreEachRailHasItsOwnSpines) {
  // Leaves of 2 down, 2 up: units of 2 nodes, one rail per leaf; spines of 2 down and 2 up: pods
  // of 2 units' leaves of one rail. 4 units x 2 rails = 8 leaves; 4 pods x 2 spines; 2 x 2 cores.
  ClusterSpec spec =
      rail_cluster(8, {{SwitchTier::leaf, 4, 1.0}, {SwitchTier::spine, 4, 1.0}, {SwitchTier::core, 4, 1.0}});
  spec.node.nics = 2;
  const Graph graph = build_cluster(spec);
  EXPECT_EQ(count_tier(graph, SwitchTier::leaf), 8u);
  EXPECT_EQ(count_tier(graph, SwitchTier::spine), 8u);
  EXPECT_EQ(count_tier(graph, SwitchTier::core), 4u);
  // Pods in order: rail 0 of units 1-2, rail 0 of units 3-4, rail 1 of units 1-2, rail 1 of units 3-4.
  EXPECT_TRUE(cabled(graph, "su01-rail0", "spine0001"));
  EXPECT_TRUE(cabled(graph, "su02-rail0", "spine0002"));
  EXPECT_TRUE(cabled(graph, "su03-rail0", "spine0003"));
  EXPECT_TRUE(cabled(graph, "su01-rail1", "spine0005"));
  EXPECT_FALSE(cabled(graph, "su01-rail1", "spine0001"));
  FabricHierarchy fabric(graph);
  // Rail 0 between units 1 and 2 turns at its pod's spines; rails 0 and 1 of one unit meet only in
  // the cores, although the spines of both serve the same hosts.
  EXPECT_EQ(fabric.switch_meeting_level(graph.find("su01-rail0"), graph.find("su02-rail0")), 2);
  EXPECT_EQ(fabric.switch_meeting_level(graph.find("su01-rail0"), graph.find("su03-rail0")), 3);
  EXPECT_EQ(fabric.switch_meeting_level(graph.find("su01-rail0"), graph.find("su01-rail1")), 3);
  // A rail's ring between units 1 and 2 climbs its own leaf's 2 uplinks and nothing else.
  const auto up = fabric.switch_profile(graph.find("su01-rail0"), 2, false);
  ASSERT_EQ(up.size(), 1u);
  EXPECT_EQ(fabric.resource_owner(up[0].resource), graph.find("su01-rail0"));
  EXPECT_DOUBLE_EQ(up[0].share, 1.0);
}

TEST(RailOptimizedSpec, BadFieldsNameTheirLine) {
  const std::string fabric = "fabric:\n  topology: rail_optimized\n";
  const std::string tiers = "  tiers:\n    - {name: leaf, radix: 64}\n    - {name: spine, radix: 64}\n";
  EXPECT_EQ(parse_error(superpod_node + fabric + "  scalable_unit: 40\n" + tiers),
            "rail.yaml:9: expected a cluster that can be built, got fabric.scalable_unit of 40 nodes needs 40 down "
            "ports per rail leaf; the leaf radix 64 at 1:1 leaves 32 down ports");
  EXPECT_EQ(parse_error(superpod_node + fabric + "  scalable_unit: 16\n  rails_per_leaf: 3\n" + tiers),
            "rail.yaml:10: expected a cluster that can be built, got fabric.rails_per_leaf 3 x scalable_unit 16 nodes "
            "needs 48 down ports; the leaf radix 64 at 1:1 leaves 32 down ports");
  EXPECT_EQ(parse_error(superpod_node + fabric + "  scalable_unit: 0\n" + tiers),
            "rail.yaml:9: expected scalable_unit as an integer of at least 1, got '0'");
  EXPECT_EQ(parse_error(superpod_node + "fabric:\n  scalable_unit: 32\n" + tiers),
            "rail.yaml:8: expected fabric.scalable_unit only with topology: rail_optimized, got 'fat_tree'");
  EXPECT_EQ(parse_error(superpod_node + "fabric:\n  topology: torus\n" + tiers),
            "rail.yaml:8: expected fabric topology fat_tree or rail_optimized, got 'torus'");
}

// A spine-less rail fabric: rail-aligned traffic is all it can carry, so every op must keep to its
// rails (rings and trees pair NIC k with NIC k; sendrecv goes through PXN).
TEST(RailOptimizedModel, OneUnitWithoutSpinesCarriesEveryOpOnItsRails) {
  ClusterSpec spec = rail_cluster(4, {{SwitchTier::leaf, 64, 1.0}});
  spec.fabric.rails_per_leaf = 1;
  const Graph graph = build_cluster(spec);
  const CollectiveModel model = model_collectives(graph, place_ranks(graph, 0, 0));
  EXPECT_NEAR(model.ring_gbps, 8 * 50 * 0.95, 1e-6);
  EXPECT_NEAR(model.net_gbps, 8 * 50 * 0.95, 1e-6);
  // GPU7 of one node to GPU0 of the next: handed over NVLink to GPU0, out of mlx5_0 to rail 0.
  EXPECT_NEAR(model.sendrecv_gbps, 50 * 0.95, 1e-6);
  EXPECT_NEAR(model.alltoall_node_gbps, 8 * 50 * 0.95, 1e-6);
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "alltoall", "sendrecv"}) {
    EXPECT_GT(predict(model, op_by_name(op), GiB).busbw_gbps, 0) << op;
  }
  // The path between rails is the model's assumption, said aloud; a fat tree makes none.
  EXPECT_THAT(model.assumptions, ::testing::Contains(::testing::HasSubstr("through PXN")));
  spec.fabric.layout = FabricLayout::fat_tree;
  const Graph fat_tree = build_cluster(spec);
  EXPECT_THAT(model_collectives(fat_tree, place_ranks(fat_tree, 0, 0)).assumptions,
              ::testing::Not(::testing::Contains(::testing::HasSubstr("PXN"))));
}

// Between rails, PXN keeps a send on the receiver's rail; without NVLink there is no PXN and the
// send crosses from one rail's leaf to the other's through the spines. Spine cables of 1xSDR make
// that crossing the limit wherever it happens.
TEST(RailOptimizedModel, SendsBetweenRailsCrossTheSpinesOnlyWithoutPxn) {
  ClusterSpec spec = rail_cluster(2, {{SwitchTier::leaf, 64, 1.0}, {SwitchTier::spine, 64, 1.0}});
  spec.fabric.switch_link = *infiniband(1, "SDR");
  spec.fabric.rails_per_leaf = 1;
  const Graph nvlink = build_cluster(spec);
  const CollectiveModel pxn = model_collectives(nvlink, place_ranks(nvlink, 0, 0));
  EXPECT_NEAR(pxn.sendrecv_gbps, 50 * 0.95, 1e-6);
  spec.node.nvlinks_per_gpu = 0;
  spec.node.nvswitches = 0;
  const Graph pcie_only = build_cluster(spec);
  const CollectiveModel direct = model_collectives(pcie_only, place_ranks(pcie_only, 0, 0));
  // GPU7 -> mlx5_7 -> su01-rail7 -> spines -> su01-rail0 -> mlx5_0 -> GPU0, from both nodes: two
  // sends share rail 7's 32 uplinks of 1xSDR (0.25 GB/s each, 0.95 of it for NCCL).
  EXPECT_NEAR(direct.sendrecv_gbps, 32 * 0.25 * 0.95 / 2, 1e-6);
  EXPECT_THAT(direct.sendrecv_limit,
              ::testing::MatchesRegex("su01-rail(7 uplinks, going up|0 uplinks, coming down) .*"));
  // Rings stay on their rails either way: no spine at all.
  EXPECT_NEAR(direct.net_gbps, 8 * 47.5, 1e-6);
}

Graph rail_dump_with_nodes() {
  Graph graph = parse_topology(
      SourceText{
          "nodes.yaml",
          "node:\n  hosts: \"dgx[01-08]\"\n  gpus: 8\n  nvlink: {generation: 4, links_per_gpu: 18, nvswitches: 4}\n"
          "  pcie: {generation: 5, width: 16, switches: 4}\n  nics: {count: 8, link: 4xNDR}\n"},
      "cluster-yaml");
  graph.merge(parse_topology(SourceText{"rails.ibnet", test::rail_optimized_ibnetdiscover()}, "ibnetdiscover"));
  return graph;
}

TEST(RailOptimizedIbnetdiscover, UnitsGroupTheHostsAndNamesNumberTheRails) {
  const Graph graph = parse_topology(SourceText{"rails.ibnet", test::rail_optimized_ibnetdiscover()}, "auto");
  EXPECT_EQ(count_kind(graph, VertexKind::host), 8u);
  EXPECT_EQ(count_kind(graph, VertexKind::nic), 64u);
  EXPECT_EQ(count_tier(graph, SwitchTier::leaf), 16u);
  EXPECT_EQ(count_tier(graph, SwitchTier::spine), 2u);
  // GUIDs follow no NIC order; the device names do.
  for (int rail : {0, 2, 7}) EXPECT_EQ(graph.vertex(graph.find(fmt::format("dgx03/mlx5_{}", rail))).index, rail);
  // The dump states no PCI order: numbering by name is an assumption, said once for the file.
  EXPECT_THAT(graph.assumptions(),
              ::testing::Contains(::testing::HasSubstr("rails.ibnet: a host's NICs are ordered by device name")));
  FabricHierarchy fabric(graph);
  std::vector<std::vector<std::string>> units;
  for (const FabricHierarchy::Group& group : fabric.groups()) {
    if (group.level != 1) continue;
    EXPECT_EQ(group.switches.size(), 8u);
    auto& names = units.emplace_back();
    for (const std::uint32_t h : group.hosts) names.push_back(graph.vertex(fabric.hosts()[h]).name);
  }
  EXPECT_THAT(units, ::testing::UnorderedElementsAre(::testing::ElementsAre("dgx01", "dgx02", "dgx03", "dgx04"),
                                                     ::testing::ElementsAre("dgx05", "dgx06", "dgx07", "dgx08")));
  EXPECT_EQ(fabric.switch_meeting_level(graph.find("su1-rail0"), graph.find("su1-rail5")), 2);
  // All-to-all between hosts (rail-matched, as PXN sends): the 16 flows between the units share
  // each rail leaf's 2 uplinks (100 GB/s) at 1/8 each: 50 GB/s, against 400/7 on a non-blocking fabric.
  const PatternAnalysis analysis = analyze_pattern(fabric, TrafficPattern::all_to_all);
  EXPECT_NEAR(analysis.min_flow_rate_gbps, 50.0, 1e-9);
  EXPECT_NEAR(analysis.completion_time_ratio, 400.0 / 7 / 50.0, 1e-9);
  EXPECT_THAT(analysis.slowest_flow_limit,
              ::testing::MatchesRegex("su[12]-rail[0-7] (up|down)links \\(100\\.0 GB/s\\)"));
}

TEST(RailOptimizedIbnetdiscover, PredictionsKeepEachRailOnItsLeaves) {
  const Graph graph = rail_dump_with_nodes();
  const CollectiveModel model = model_collectives(graph, place_ranks(graph, 0, 0));
  EXPECT_EQ(model.nodes, 8);
  EXPECT_EQ(model.rails, 8);
  // Rail k runs mlx5_k to mlx5_k: 6 of its 8 hops stay on one leaf, 2 cross the 2:1 uplinks
  // alone, so every rail runs at its NDR port (47.5 GB/s). Rails paired by GUID order would cross
  // between leaves of one unit, through the spines.
  EXPECT_NEAR(model.ring_gbps, 8 * 47.5, 1e-6);
  EXPECT_NE(model.ring_limit.find("IB NDR"), std::string::npos) << model.ring_limit;
  // alltoall: each node's 4 flows to the other unit cross the uplinks at 2 x 47.5 / 2 each.
  EXPECT_NEAR(model.alltoall_node_gbps, 7 * 47.5, 1e-6);
  EXPECT_THAT(model.alltoall_limit, ::testing::HasSubstr("(95.0 GB/s)"));
  const Prediction alltoall = predict(model, op_by_name("alltoall"), GiB);
  // 56 of 64 ranks' shares leave the node: 8 GPUs x 56/64 of 1 GiB through 332.5 GB/s.
  const double network_us = 8.0 * 56 / 64 * GiB / (7 * 47.5 * 1e3);
  EXPECT_NEAR(alltoall.time_us, network_us, 0.001 * network_us + 30);
}

// docs/model.md, "Rail-optimized or fat tree, 400G or 800G NICs": every number of its table.
struct ProcurementPoint {
  const char* spec;
  int nodes;
  const char* op;
  double busbw_gbps;
  const char* limit;
};

TEST(RailOptimizedProcurement, TheNumbersDocsModelMdStates) {
  const ProcurementPoint points[] = {
      {"h100-roce400.yaml", 16, "all_reduce", 348.6, "RoCE"},
      {"h100-roce400.yaml", 16, "all_gather", 303.3, "RoCE"},
      {"h100-roce400.yaml", 16, "alltoall", 48.5, "NIC ports"},
      {"h100-rail-roce400.yaml", 16, "all_reduce", 350.1, "RoCE"},
      {"h100-rail-roce400.yaml", 16, "all_gather", 305.4, "RoCE"},
      {"h100-rail-roce400.yaml", 16, "alltoall", 48.5, "NIC ports"},
      {"h100-roce800.yaml", 16, "all_reduce", 363.0, "PCIe Gen5"},
      {"h100-roce800.yaml", 16, "all_gather", 315.0, "PCIe Gen5"},
      {"h100-roce800.yaml", 16, "alltoall", 50.6, "PCIe path"},
      {"h100-rail-roce800.yaml", 16, "all_reduce", 364.6, "PCIe Gen5"},
      {"h100-rail-roce800.yaml", 16, "all_gather", 317.3, "PCIe Gen5"},
      {"h100-rail-roce800.yaml", 16, "alltoall", 50.6, "PCIe path"},
      {"h100-roce400-taper2.yaml", 16, "all_reduce", 306.8, "leaf0002 uplinks, coming down"},
      {"h100-roce400-taper2.yaml", 16, "all_gather", 303.3, "RoCE"},
      {"h100-roce400-taper2.yaml", 16, "alltoall", 34.8, "leaf0001 uplinks, going up"},
      {"h100-rail-roce400-taper2.yaml", 16, "all_reduce", 350.1, "RoCE"},
      {"h100-rail-roce400-taper2.yaml", 16, "all_gather", 305.4, "RoCE"},
      {"h100-rail-roce400-taper2.yaml", 16, "alltoall", 48.5, "NIC ports"},
      {"h100-roce400.yaml", 128, "all_reduce", 340.5, "RoCE"},
      {"h100-roce400.yaml", 128, "all_gather", 177.2, "RoCE"},
      {"h100-roce400.yaml", 128, "alltoall", 45.7, "NIC ports"},
      {"h100-rail-roce400.yaml", 128, "all_reduce", 340.5, "RoCE"},
      {"h100-rail-roce400.yaml", 128, "all_gather", 177.2, "RoCE"},
      {"h100-rail-roce400.yaml", 128, "alltoall", 45.7, "NIC ports"},
      {"h100-roce800.yaml", 128, "all_reduce", 354.2, "PCIe Gen5"},
      {"h100-roce800.yaml", 128, "all_gather", 181.1, "PCIe Gen5"},
      {"h100-roce800.yaml", 128, "alltoall", 47.6, "PCIe path"},
      {"h100-rail-roce800.yaml", 128, "all_reduce", 354.2, "PCIe Gen5"},
      {"h100-rail-roce800.yaml", 128, "all_gather", 181.1, "PCIe Gen5"},
      {"h100-rail-roce800.yaml", 128, "alltoall", 47.6, "PCIe path"},
      {"h100-roce400-taper2.yaml", 128, "all_reduce", 300.7, "leaf0002 uplinks, coming down"},
      {"h100-roce400-taper2.yaml", 128, "all_gather", 177.2, "RoCE"},
      {"h100-roce400-taper2.yaml", 128, "alltoall", 24.9, "leaf0001 uplinks, going up"},
      {"h100-rail-roce400-taper2.yaml", 128, "all_reduce", 340.5, "RoCE"},
      {"h100-rail-roce400-taper2.yaml", 128, "all_gather", 177.2, "RoCE"},
      {"h100-rail-roce400-taper2.yaml", 128, "alltoall", 33.4, "su01-rail0 uplinks"},
  };
  for (const ProcurementPoint& point : points) {
    SCOPED_TRACE(fmt::format("{} --nodes {} --op {}", point.spec, point.nodes, point.op));
    const std::string path = std::string(DOCS_EXAMPLES_DIR) + "/" + point.spec;
    const Graph graph = parse_topology(SourceText{path, fb::read_text_file(path)});
    const Prediction prediction =
        predict(model_collectives(graph, place_ranks(graph, point.nodes, 0)), op_by_name(point.op), GiB);
    EXPECT_NEAR(prediction.busbw_gbps, point.busbw_gbps, 0.05);
    EXPECT_THAT(prediction.limit, ::testing::HasSubstr(point.limit));
  }
}

}  // namespace
}  // namespace fb::topo
