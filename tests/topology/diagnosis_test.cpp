// Diagnosis against measurements simulated on a fabric whose faults are known: the degraded link
// must be named, blocking must be confirmed only where the model saturates a link, and a healthy
// fabric must give nothing.

#include "core/errors.hpp"
#include "topology/diagnosis.hpp"
#include "topology/pair_simulation.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace fb::topo {
namespace {

constexpr double host_link_gbps = 1.0;

struct TwoLeafFabric {
  Graph graph;
  std::vector<std::string> hosts;  // leaf by leaf
  std::vector<LinkId> host_links;
  std::vector<LinkId> uplinks;
};

// 2 leaves x 4 hosts, one NIC each, one cable per leaf to the spine (as the emulated fabric has).
TwoLeafFabric two_leaf_fabric(double uplink_gbps) {
  TwoLeafFabric fabric;
  const LinkSpec host_link{LinkType::ethernet, "Ethernet", 1, host_link_gbps, 1.0};
  const VertexId spine = fabric.graph.add_vertex(VertexKind::fabric_switch, "spine0001");
  fabric.graph.set_tier(spine, SwitchTier::spine);
  for (int leaf_index = 1; leaf_index <= 2; ++leaf_index) {
    const VertexId leaf = fabric.graph.add_vertex(VertexKind::fabric_switch, "leaf000" + std::to_string(leaf_index));
    fabric.graph.set_tier(leaf, SwitchTier::leaf);
    LinkSpec uplink = host_link;
    uplink.capacity_gbps = uplink_gbps;
    fabric.uplinks.push_back(fabric.graph.add_link(leaf, spine, uplink));
    for (int h = 1; h <= 4; ++h) {
      const std::string name = "h0000" + std::to_string((leaf_index - 1) * 4 + h);
      const VertexId host = fabric.graph.add_vertex(VertexKind::host, name);
      const VertexId nic = fabric.graph.add_vertex(VertexKind::nic, name + "/eth0", host, 0);
      fabric.host_links.push_back(fabric.graph.add_link(nic, leaf, host_link));
      fabric.hosts.push_back(name);
    }
  }
  return fabric;
}

std::vector<int> all_endpoints(const TwoLeafFabric& fabric) {
  std::vector<int> endpoints(fabric.hosts.size());
  std::iota(endpoints.begin(), endpoints.end(), 0);
  return endpoints;
}

std::vector<ResultRow> pairwise_on(const Graph& truth, const TwoLeafFabric& fabric, double noise = 0.03) {
  return simulate_pair_rounds(truth, fabric.hosts, pairwise_rounds(all_endpoints(fabric)),
                              {.op = "pairwise", .noise_fraction = noise, .seed = 7});
}

std::vector<ResultRow> concurrent_on(const Graph& truth, const TwoLeafFabric& fabric) {
  return simulate_pair_rounds(truth, fabric.hosts, concurrent_rounds(all_endpoints(fabric), CutKind::halves, 0),
                              {.op = "concurrent", .noise_fraction = 0.03, .seed = 11});
}

TEST(Diagnosis, HealthyFabricHasNoFindings) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  const Diagnosis pairwise = diagnose(fabric.graph, pairwise_on(fabric.graph, fabric));
  EXPECT_TRUE(pairwise.findings.empty()) << pairwise.findings.front().subject;
  EXPECT_EQ(pairwise.flows_examined, 56u);  // 8 x 7 ordered pairs
  EXPECT_NEAR(pairwise.calibration, 0.9, 0.05);
  EXPECT_TRUE(diagnose(fabric.graph, concurrent_on(fabric.graph, fabric)).findings.empty());
}

TEST(Diagnosis, NamesExactlyTheThrottledHostLink) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  Graph truth = fabric.graph;
  const LinkId bad_cable = fabric.host_links[2];  // h00003
  truth.set_link_capacity(bad_cable, host_link_gbps / 4);
  const Diagnosis diagnosis = diagnose(fabric.graph, pairwise_on(truth, fabric));
  ASSERT_EQ(diagnosis.findings.size(), 1u);
  const DiagnosisFinding& finding = diagnosis.findings.front();
  EXPECT_EQ(finding.kind, "degraded_link");
  EXPECT_EQ(finding.link, bad_cable);
  EXPECT_EQ(finding.direction, LinkDirection::both);
  EXPECT_NEAR(finding.ratio(), 0.25, 0.05);
  EXPECT_GE(finding.confidence, 0.99);
  EXPECT_EQ(diagnosis.slow_flows, 14u);  // h00003 to and from each of 7 peers
  EXPECT_EQ(diagnosis.slow_flows_explained, 14u);
  EXPECT_NE(finding.subject.find("h00003/eth0 <-> leaf0001"), std::string::npos);
}

TEST(Diagnosis, OneDirectionDegradedIsNamedWithItsDirection) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  // A transmit-side fault: only what h00006 sends is slow.
  std::vector<ResultRow> rows = pairwise_on(fabric.graph, fabric);
  for (ResultRow& row : rows)
    if (row.src_host == "h00006") row.algbw_gbps /= 3;
  const Diagnosis diagnosis = diagnose(fabric.graph, rows);
  ASSERT_EQ(diagnosis.findings.size(), 1u);
  EXPECT_EQ(diagnosis.findings.front().link, fabric.host_links[5]);
  EXPECT_EQ(diagnosis.findings.front().direction, LinkDirection::a_to_b);  // NIC to leaf
}

TEST(Diagnosis, BlockingUplinksAreConfirmedByConcurrentButNotFlaggedByPairwise) {
  const TwoLeafFabric fabric = two_leaf_fabric(2 * host_link_gbps);  // 2:1
  const Diagnosis concurrent = diagnose(fabric.graph, concurrent_on(fabric.graph, fabric));
  ASSERT_FALSE(concurrent.findings.empty());
  for (const DiagnosisFinding& finding : concurrent.findings) {
    EXPECT_EQ(finding.kind, "blocking_link");
    EXPECT_TRUE(finding.link == fabric.uplinks[0] || finding.link == fabric.uplinks[1]) << finding.subject;
    EXPECT_NEAR(finding.ratio(), 0.5, 0.1);  // four host links' worth offered, two carried
  }
  const Diagnosis pairwise = diagnose(fabric.graph, pairwise_on(fabric.graph, fabric));
  EXPECT_TRUE(pairwise.findings.empty()) << pairwise.findings.front().subject;
}

TEST(Diagnosis, UnknownHostIsAnInputError) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  std::vector<ResultRow> rows = pairwise_on(fabric.graph, fabric);
  rows.front().src_host = "h00099";
  EXPECT_THROW(diagnose(fabric.graph, rows), InputError);
}

}  // namespace
}  // namespace fb::topo
