// What a fault costs the job mix, on the genuine 8-host fabric of tests/topology/fixtures/forwarding:
// a host cable at a quarter slows every ring and every alltoall through that host 4x; one of a
// leaf's four uplink cables at a quarter costs far less, since the other three carry the rest.

#include "common/errors.hpp"
#include "diagnosis/fault_cost.hpp"
#include "test_support.hpp"
#include "topology/forwarding_tables.hpp"
#include "topology/routed_collective.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace fb::topo {

using diagnosis::Diagnosis;
using diagnosis::Finding;
using diagnosis::FaultCost;
using diagnosis::MixedJob;
using diagnosis::default_job_mix;
using diagnosis::parse_job_mix;
using diagnosis::describe_job_mix;
using diagnosis::predict_fault_costs;
using diagnosis::describe_cost_basis;
namespace {

const std::string ftree = std::string(TOPOLOGY_FIXTURES_DIR) + "/forwarding/ftree/";

Graph fixture_fabric() { return load_topology({ftree + "ibnetdiscover.txt"}); }

// The cable plugged into `switch_name` port `port`, as ibnetdiscover states it.
LinkId cable_at(const Graph& graph, const std::string& switch_name, int port) {
  for (LinkId l = 0; l < graph.link_count(); ++l) {
    const std::optional<CablePorts> ports = graph.cable_ports(l);
    if (ports && ((graph.vertex(graph.link(l).a).name == switch_name && ports->a == port) ||
                  (graph.vertex(graph.link(l).b).name == switch_name && ports->b == port)))
      return l;
  }
  ADD_FAILURE() << "no cable at " << switch_name << " port " << port;
  return 0;
}

Finding degraded(const Graph& graph, const std::string& a, const std::string& b, double ratio) {
  Finding finding;
  finding.kind = "degraded_link";
  finding.link = *graph.find_link(graph.find(a), graph.find(b));
  finding.set_bandwidth_gbps(100, 100 * ratio);
  return finding;
}

TEST(FaultCost, AHostCableCostsTheMixMoreThanOneUplinkOfABundle) {
  const Graph graph = fixture_fabric();
  Diagnosis diagnosis;
  diagnosis.findings.push_back(degraded(graph, "leaf01", "spine01", 0.25));
  diagnosis.findings.push_back(degraded(graph, "h003/mlx5_0", "leaf02", 0.25));
  Finding blocking = degraded(graph, "leaf03", "spine02", 0.5);
  blocking.kind = "blocking_link";
  diagnosis.findings.push_back(blocking);

  const auto costs = predict_fault_costs(graph, diagnosis, default_job_mix());
  ASSERT_EQ(costs.size(), 3u);
  ASSERT_TRUE(costs[0] && costs[1]);
  // The ring and the alltoall both run at the throttled host's rate: 4x the time, less the
  // latency terms that do not grow.
  EXPECT_GT(costs[1]->slowdown, 2.5);
  EXPECT_LE(costs[1]->slowdown, 3.0 + 1e-9);
  EXPECT_GE(costs[0]->slowdown, 0.0);
  EXPECT_LT(costs[0]->slowdown, costs[1]->slowdown / 2);
  EXPECT_FALSE(costs[2]) << "a blocking link is the design, not a part that lost rate";
}

// The routed fabric of docs/emulated-fabric.md, priced on OpenSM's ftree tables (dump_fts): the
// ring h001 -> h002 -> ... -> h008 -> h001 crosses leaf01's cable at port 3 (to spine01 port 1)
// on its h002 -> h003 hop (up) and its h008 -> h001 hop (down), and never leaf01's port 4 (to
// spine01 port 2: the tables put h001 -> h005 and h002 -> h005 there, no ring hop). Every cable
// is 4xSDR and the tables give each ring hop a path of its own, so the healthy ring's slowest
// flow is 1 flow / C. With port 3 at a quarter, two ring flows cross it, one each way: 1 / (C/4),
// so every step's bandwidth term is 4x, +300%. The model's 8 MiB ring in host memory is 15.9 ms,
// 15.45 ms of it bandwidth and 0.45 ms its 14 steps' latency, which does not grow: +300% x
// 15.45 / 15.9 = +291.5%, exactly what h001's own cable at a quarter costs (one ring flow each
// way too). Port 4 at a quarter carries no ring flow: +0%. Pooling leaf01's four uplinks (no
// tables) hid the first: about +0%, the gap measured on the emulated fabric (+236%).
TEST(FaultCost, OnTheForwardingTablesALeafSpineCableTheRingCrossesCostsItsRate) {
  const Graph graph = fixture_fabric();
  const ForwardingTables tables = load_forwarding_tables(ftree + "dump_fts.txt");
  const TableRouter router(graph, tables);
  const LinkId on_ring = cable_at(graph, "leaf01", 3);
  const LinkId off_ring = cable_at(graph, "leaf01", 4);
  // The derivation's premise, from the tables: which ring hops cross which cable.
  const auto crosses = [&](const std::string& src, const std::string& dst, LinkId cable) {
    const std::optional<Route> route = router.route(graph.find(src + "/mlx5_0"), graph.find(dst + "/mlx5_0"));
    return route &&
           std::any_of(route->uses.begin(), route->uses.end(), [&](const LinkUse& use) { return use.link == cable; });
  };
  EXPECT_TRUE(crosses("h002", "h003", on_ring));
  EXPECT_TRUE(crosses("h008", "h001", on_ring));
  for (int h = 1; h <= 8; ++h) {
    const std::string src = "h00" + std::to_string(h);
    const std::string dst = "h00" + std::to_string(h % 8 + 1);
    EXPECT_FALSE(crosses(src, dst, off_ring)) << src << " -> " << dst;
  }
  EXPECT_TRUE(crosses("h001", "h005", off_ring));

  Diagnosis diagnosis;
  diagnosis.findings.push_back(degraded(graph, "leaf01", "spine01", 0.25));
  diagnosis.findings.back().link = on_ring;
  diagnosis.findings.push_back(degraded(graph, "leaf01", "spine01", 0.25));
  diagnosis.findings.back().link = off_ring;
  diagnosis.findings.push_back(degraded(graph, "h001/mlx5_0", "leaf01", 0.25));
  const std::vector<MixedJob> ring_job = parse_job_mix("all_reduce:8M");

  const auto routed = predict_fault_costs(graph, diagnosis, ring_job, &router);
  ASSERT_EQ(routed.size(), 3u);
  ASSERT_TRUE(routed[0] && routed[1] && routed[2]);
  EXPECT_NEAR(routed[0]->slowdown, 2.915, 0.01) << "the ring runs at the throttled cable's rate";
  EXPECT_LE(routed[0]->slowdown, 3.0 + 1e-9) << "the latency terms do not grow";
  EXPECT_NEAR(routed[0]->slowdown, routed[2]->slowdown, 1e-9) << "one ring flow each way, as on h001's cable";
  EXPECT_NEAR(routed[1]->slowdown, 0.0, 1e-9) << "no ring flow crosses it";

  const auto pooled = predict_fault_costs(graph, diagnosis, ring_job);
  ASSERT_TRUE(pooled[0] && pooled[2]);
  EXPECT_LT(pooled[0]->slowdown, 0.05) << "pooled uplinks: the gap the tables close";
  EXPECT_NEAR(pooled[2]->slowdown, routed[2]->slowdown, 0.03);
  EXPECT_NE(describe_cost_basis(&router).find("forwarding tables' paths"), std::string::npos);
  EXPECT_NE(describe_cost_basis(nullptr).find("routes unknown: uplinks pooled"), std::string::npos);
}

// The alltoall's step is every node pair at once: 56 flows over 8 hosts. A leaf-spine cable of
// the tables' routes carries several of them; a host cable carries its host's seven.
TEST(FaultCost, OnTheForwardingTablesAlltoallsStepIsEveryNodePair) {
  const Graph graph = fixture_fabric();
  const ForwardingTables tables = load_forwarding_tables(ftree + "dump_fts.txt");
  const TableRouter router(graph, tables);
  std::vector<VertexId> ranks;
  for (int h = 1; h <= 8; ++h) ranks.push_back(graph.find("h00" + std::to_string(h) + "/mlx5_0"));
  const auto flows = step_flows(graph, ranks, *modelled_op("alltoall"), Algorithm::p2p);
  ASSERT_TRUE(flows);
  EXPECT_EQ(flows->size(), 56u);
  const RoutedStep step(graph, &router, *flows);
  EXPECT_EQ(step.flows_on_table_routes(), 56);
  // A host cable carries its host's 7 flows each way; 7 / C is the healthy step's slowest flow.
  const double capacity =
      graph.link(*graph.find_link(graph.find("h001/mlx5_0"), graph.find("leaf01"))).spec.capacity_gbps;
  EXPECT_NEAR(step.slowest_flow_s_per_gb(graph), 7 / capacity, 1e-9);
  EXPECT_FALSE(step_flows(graph, ranks, *modelled_op("all_reduce"), Algorithm::nvls)) << "not NIC-to-NIC flows";
}

TEST(FaultCost, JobMixFlagText) {
  const std::vector<MixedJob> mix = parse_job_mix("all_reduce:1G, alltoall:256M");
  ASSERT_EQ(mix.size(), 2u);
  EXPECT_EQ(mix[1].bytes, 256u << 20);
  EXPECT_EQ(describe_job_mix(mix), "all_reduce 1G + alltoall 256M across every node");
  EXPECT_THROW(parse_job_mix("all_reduce"), UsageError);
  EXPECT_THROW(parse_job_mix("pairwise:1G"), UsageError);
}

}  // namespace
}  // namespace fb::topo
