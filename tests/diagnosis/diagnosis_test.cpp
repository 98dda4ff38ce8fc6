// Diagnosis against measurements simulated on a fabric whose faults are known: the degraded link
// must be named, blocking must be confirmed only where the model saturates a link, and a healthy
// fabric must give nothing.

#include "common/errors.hpp"
#include "diagnosis/diagnosis.hpp"
#include "diagnosis/incident_diagnosis.hpp"
#include "diagnosis/intermittent_diagnosis.hpp"
#include "topology/pair_simulation.hpp"
#include "diagnosis/port_diagnosis.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

namespace fb::topo {

using diagnosis::Diagnosis;
using diagnosis::Finding;
using diagnosis::LinkDirection;
using diagnosis::diagnose;
using diagnosis::diagnose_incidents;
using diagnosis::diagnose_intermittent;
using diagnosis::diagnose_port_counters;

namespace {

constexpr double host_link_gbps = 1.0;

struct TwoLeafFabric {
  Graph graph;
  std::vector<std::string> hosts;  // leaf by leaf
  std::vector<LinkId> host_links;
  std::vector<LinkId> uplinks;
};

// 2 leaves x 4 hosts, one NIC each, one cable per leaf to the spine (as the emulated fabric has);
// more leaves where a test needs a leaf's uplink told apart from the others'.
TwoLeafFabric two_leaf_fabric(double uplink_gbps, int leaves = 2) {
  TwoLeafFabric fabric;
  const LinkSpec host_link{LinkType::ethernet, "Ethernet", 1, host_link_gbps, 1.0};
  const VertexId spine = fabric.graph.add_vertex(VertexKind::fabric_switch, "spine0001");
  fabric.graph.set_tier(spine, SwitchTier::spine);
  for (int leaf_index = 1; leaf_index <= leaves; ++leaf_index) {
    const VertexId leaf = fabric.graph.add_vertex(VertexKind::fabric_switch, "leaf000" + std::to_string(leaf_index));
    fabric.graph.set_tier(leaf, SwitchTier::leaf);
    LinkSpec uplink = host_link;
    uplink.capacity_gbps = uplink_gbps;
    fabric.uplinks.push_back(fabric.graph.add_link(leaf, spine, uplink));
    for (int h = 1; h <= 4; ++h) {
      const std::string name = fmt::format("h{:05d}", (leaf_index - 1) * 4 + h);
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
  const Finding& finding = diagnosis.findings.front();
  EXPECT_EQ(finding.kind, "degraded_link");
  EXPECT_EQ(finding.link, bad_cable);
  EXPECT_EQ(finding.direction, LinkDirection::both);
  EXPECT_NEAR(*finding.ratio(), 0.25, 0.05);
  EXPECT_GE(*finding.confidence, 0.99);
  EXPECT_EQ(diagnosis.slow_flows, 14u);  // h00003 to and from each of 7 peers
  EXPECT_EQ(diagnosis.slow_flows_explained, 14u);
  EXPECT_NE(finding.subject.find("h00003/eth0 <-> leaf0001"), std::string::npos);
}

// A cable losing 1% of its packets: its pairs lose 3% of their bandwidth (under the slow ratio by
// far) but their slowest iterations take ten times the median's. The tails name the cable.
TEST(Diagnosis, ALossyCableIsNamedByTheLatencyTailsOfItsPairs) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  std::vector<ResultRow> rows = pairwise_on(fabric.graph, fabric);
  for (ResultRow& row : rows)
    if (row.src_host == "h00003" || row.dst_host == "h00003") {
      row.algbw_gbps *= 0.97;
      row.time_p99_us = 10 * row.time_median_us;
    }
  const Diagnosis diagnosis = diagnose(fabric.graph, rows);
  ASSERT_EQ(diagnosis.findings.size(), 1u) << diagnosis.findings.back().subject;
  EXPECT_EQ(diagnosis.findings[0].kind, "lossy_link");
  EXPECT_EQ(diagnosis.findings[0].link, fabric.host_links[2]);
  EXPECT_EQ(diagnosis.findings[0].direction, LinkDirection::both);
  EXPECT_GE(*diagnosis.findings[0].confidence, 0.99);
  EXPECT_EQ(diagnosis.slow_flows, 0u);

  // Rows without p99 times: the result says the tails were not checked.
  for (ResultRow& row : rows) row.time_p99_us = 0;
  const Diagnosis blind = diagnose(fabric.graph, rows);
  EXPECT_TRUE(blind.findings.empty());
  ASSERT_FALSE(blind.blind_spots.empty());
  EXPECT_NE(blind.blind_spots.front().find("carry no p99 times: not checked"), std::string::npos);
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
  for (const Finding& finding : concurrent.findings) {
    EXPECT_EQ(finding.kind, "blocking_link");
    EXPECT_TRUE(finding.link == fabric.uplinks[0] || finding.link == fabric.uplinks[1]) << finding.subject;
    EXPECT_NEAR(*finding.ratio(), 0.5, 0.1);  // four host links' worth offered, two carried
  }
  const Diagnosis pairwise = diagnose(fabric.graph, pairwise_on(fabric.graph, fabric));
  EXPECT_TRUE(pairwise.findings.empty()) << pairwise.findings.front().subject;
}

// A timeout in round 4 of pairwise on the 8 hosts, one rank each (rank r on host r + 1), pairs
// (0,4) (1,5) (2,6) (3,7): every rank arrived until a test holds some back.
Incident pairwise_timeout(const TwoLeafFabric& fabric) {
  Incident incident;
  incident.kind = "timeout";
  incident.op = "pairwise";
  incident.bytes = 1 << 20;
  incident.round = 4;
  incident.step = "gathering times";
  for (int src = 0; src < 4; ++src)
    incident.pairs_in_flight.push_back(
        {src, src + 4, fabric.hosts[static_cast<std::size_t>(src)], fabric.hosts[static_cast<std::size_t>(src + 4)]});
  for (int rank = 0; rank < 8; ++rank)
    incident.ranks_arrived.push_back({rank, fabric.hosts[static_cast<std::size_t>(rank)], true, "gathering times"});
  incident.message = "timeout: bw 1048576 B, 4 pairs at once made no progress for 3.0 s";
  return incident;
}

// Moves `rank` to the ranks that did not arrive: silent, or still in its timed loop.
void hold_back(Incident& incident, int rank, bool answered) {
  const auto at = std::find_if(incident.ranks_arrived.begin(), incident.ranks_arrived.end(),
                               [&](const IncidentRank& r) { return r.rank == rank; });
  IncidentRank held = *at;
  incident.ranks_arrived.erase(at);
  held.answered = answered;
  held.position = answered ? "timed iteration 3" : "";
  incident.ranks_not_arrived.push_back(held);
}

std::vector<Finding> diagnose_one(const TwoLeafFabric& fabric, const Incident& incident) {
  return diagnose_incidents(fabric.graph, std::span(&incident, 1));
}

// The watchdog's side channel crosses the failed cable: h00003's rank is silent, its partner waits.
TEST(IncidentDiagnosis, SilentHostIsNamedByItsLink) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  Incident incident = pairwise_timeout(fabric);
  hold_back(incident, 2, false);
  hold_back(incident, 6, true);
  const std::vector<Finding> findings = diagnose_one(fabric, incident);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "failed_link");
  EXPECT_EQ(findings[0].link, fabric.host_links[2]);
  EXPECT_EQ(findings[0].host, "h00003");
  EXPECT_EQ(findings[0].subject, "h00003/eth0 <-> leaf0001: down or unreachable");
  EXPECT_EQ(findings[0].evidence.at(0),
            "pairwise 1048576 B round 4: no rank on h00003 answered (rank 2); every stalled pair touches h00003");
  EXPECT_EQ(findings[0].evidence.at(1), incident.message);
}

// The side channel runs over another network: both ends of the stalled pair answer, and only the
// link state tells them apart.
TEST(IncidentDiagnosis, HostThatSawItsLinkGoDownIsNamedWhenEveryRankAnswered) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  Incident incident = pairwise_timeout(fabric);
  hold_back(incident, 2, true);
  hold_back(incident, 6, true);
  incident.links_lost = {{"h00003", "eth0", {2}}};
  std::vector<Finding> findings = diagnose_one(fabric, incident);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "failed_link");
  EXPECT_EQ(findings[0].link, fabric.host_links[2]);
  EXPECT_EQ(findings[0].evidence.at(0), "pairwise 1048576 B round 4: eth0 of h00003 went down during the run (seen by "
                                        "rank 2); every stalled pair touches h00003");
  // A link the topology has no NIC for stands for the host's NIC that MPI uses.
  incident.links_lost = {{"h00003", "mlx5_0/1", {2}}};
  findings = diagnose_one(fabric, incident);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].link, fabric.host_links[2]);
}

// Both ends of the one stalled pair answered and no link went down: either host may be at fault.
TEST(IncidentDiagnosis, OneStalledPairAnsweringNamesBothHostsAndNoLink) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  Incident incident = pairwise_timeout(fabric);
  hold_back(incident, 2, true);
  hold_back(incident, 6, true);
  const std::vector<Finding> findings = diagnose_one(fabric, incident);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "stalled_ranks");
  EXPECT_FALSE(findings[0].link);
  EXPECT_EQ(findings[0].subject, "rank 2 on h00003, rank 6 on h00007");
  EXPECT_EQ(*findings[0].confidence, 0.5);
}

// Two stalled pairs and the silent rank in only one of them: no single host explains both.
TEST(IncidentDiagnosis, StalledPairsOnDifferentHostsNameNoLink) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  Incident incident = pairwise_timeout(fabric);
  hold_back(incident, 2, false);
  hold_back(incident, 6, true);
  hold_back(incident, 1, true);
  hold_back(incident, 5, true);
  const std::vector<Finding> findings = diagnose_one(fabric, incident);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "stalled_ranks");
  EXPECT_FALSE(findings[0].link);
  EXPECT_EQ(findings[0].subject, "rank 1 on h00002, rank 2 on h00003, rank 5 on h00006, rank 6 on h00007");
}

// Every stalled pair shares one host, every rank answered: that host's link.
TEST(IncidentDiagnosis, HostCommonToEveryStalledPairIsNamed) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  Incident incident = pairwise_timeout(fabric);
  incident.pairs_in_flight = {{2, 6, "h00003", "h00007"}, {2, 5, "h00003", "h00006"}};
  hold_back(incident, 2, true);
  hold_back(incident, 5, true);
  hold_back(incident, 6, true);
  const std::vector<Finding> findings = diagnose_one(fabric, incident);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "failed_link");
  EXPECT_EQ(findings[0].link, fabric.host_links[2]);
}

// Rank 0 reaches no other host: its own host is the one cut off.
TEST(IncidentDiagnosis, RankZerosHostIsNamedWhenNoOtherHostAnswers) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  Incident incident = pairwise_timeout(fabric);
  for (int rank = 1; rank < 8; ++rank) hold_back(incident, rank, false);
  const std::vector<Finding> findings = diagnose_one(fabric, incident);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "failed_link");
  EXPECT_EQ(findings[0].link, fabric.host_links[0]);
  EXPECT_EQ(findings[0].evidence.at(0),
            "pairwise 1048576 B round 4: no rank outside h00001 answered rank 0, which runs there");
}

// One silent rank while another rank of its host answers over the same network: a stuck process,
// not the host's cable.
TEST(IncidentDiagnosis, SilentRankWhoseHostMateAnsweredIsNotALink) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  Incident incident = pairwise_timeout(fabric);
  incident.ranks_arrived.push_back({8, "h00003", true, "gathering times"});
  hold_back(incident, 2, false);
  const std::vector<Finding> findings = diagnose_one(fabric, incident);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "stalled_ranks");
  EXPECT_EQ(findings[0].subject, "rank 2 on h00003");
}

TEST(IncidentDiagnosis, HostMissingFromTheTopologyIsAnInputError) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  Incident incident = pairwise_timeout(fabric);
  incident.links_lost = {{"h00099", "eth0", {9}}};
  EXPECT_THROW(diagnose_one(fabric, incident), InputError);
}

TEST(Diagnosis, UnknownHostIsAnInputError) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  std::vector<ResultRow> rows = pairwise_on(fabric.graph, fabric);
  rows.front().src_host = "h00099";
  EXPECT_THROW(diagnose(fabric.graph, rows), InputError);
}

TEST(Diagnosis, PairsOfRanksOnOneHostCrossNoLinkAndAreLeftOut) {
  // `--pair-endpoints ranks` on one node: every pair is h00001 to h00001, which has no route.
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  std::vector<ResultRow> rows = pairwise_on(fabric.graph, fabric);
  for (ResultRow& row : rows) row.src_host = row.dst_host = "h00001";
  const Diagnosis diagnosis = diagnose(fabric.graph, rows);
  EXPECT_EQ(diagnosis.flows_examined, 0u);
  EXPECT_TRUE(diagnosis.findings.empty());
}

PortCounterChange port_change(const std::string& host, std::map<std::string, std::uint64_t> deltas) {
  return {host, "mlx5_0/1",  "ACTIVE", "ACTIVE", "400 Gb/sec (4X NDR)", "400 Gb/sec (4X NDR)", std::move(deltas),
          {},   std::nullopt};
}

TEST(PortDiagnosis, PortWithRisingSymbolErrorsOnTheSlowHostIsNamedWithItsCableAndEverySlowPair) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  Graph truth = fabric.graph;
  truth.set_link_capacity(fabric.host_links[2], host_link_gbps / 4);  // h00003
  const std::vector<ResultRow> rows = pairwise_on(truth, fabric);
  const std::vector<PortCounterChange> changes{port_change("h00003", {{"symbol_error", 800}, {"link_downed", 0}}),
                                               port_change("h00005", {{"symbol_error", 0}, {"port_xmit_wait", 9}})};
  const std::vector<Finding> findings = diagnose_port_counters(fabric.graph, changes, rows);
  ASSERT_EQ(findings.size(), 1u);
  const Finding& finding = findings.front();
  EXPECT_EQ(finding.kind, "port_errors");
  EXPECT_EQ(finding.host, "h00003");
  // The topology calls the NIC eth0: the port's device is not in it, so the host's NIC stands in.
  EXPECT_EQ(finding.link, fabric.host_links[2]);
  EXPECT_EQ(finding.subject, "h00003 mlx5_0/1 (h00003/eth0 <-> leaf0001): symbol_error +800");
  EXPECT_EQ(finding.evidence.front(), "h00003 mlx5_0/1: symbol_error +800 during run " + rows.front().run_id);
  EXPECT_EQ(finding.evidence.size(), 1u + 14u);  // every pair to and from h00003 is slow
  EXPECT_DOUBLE_EQ(*finding.confidence, 1.0);
  EXPECT_NEAR(*finding.ratio(), 0.25, 0.05);
}

TEST(PortDiagnosis, PortWithErrorsOnAHealthyHostHasOnlyItsPairsWithTheSlowHostAsEvidence) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  Graph truth = fabric.graph;
  truth.set_link_capacity(fabric.host_links[2], host_link_gbps / 4);
  const std::vector<Finding> findings =
      diagnose_port_counters(fabric.graph, std::vector{port_change("h00006", {{"port_rcv_errors", 3}})},
                             pairwise_on(truth, fabric));
  ASSERT_EQ(findings.size(), 1u);
  // Of the 14 pairs touching h00006, only the two with h00003 are slow.
  EXPECT_DOUBLE_EQ(*findings[0].confidence, 2.0 / 14.0);
  ASSERT_EQ(findings[0].evidence.size(), 3u);
  EXPECT_NE(findings[0].evidence[1].find("h00003"), std::string::npos);
  EXPECT_NE(findings[0].evidence[2].find("h00003"), std::string::npos);
}

TEST(PortDiagnosis, ASoakRunsPortIsOneFindingNamingEveryRepetitionItDegradedIn) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  std::vector<PortCounterChange> changes;
  for (int repetition = 0; repetition < 4; ++repetition) {
    PortCounterChange change = port_change("h00003", {{"symbol_error", repetition == 1   ? 40u
                                                                       : repetition == 3 ? 7u
                                                                                         : 0u}});
    change.repetition = repetition;
    changes.push_back(change);
  }
  const std::vector<ResultRow> rows = pairwise_on(fabric.graph, fabric);
  const std::vector<Finding> findings = diagnose_port_counters(fabric.graph, changes, rows);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].subject, "h00003 mlx5_0/1 (h00003/eth0 <-> leaf0001): symbol_error +40 (repetition 2)");
  EXPECT_EQ(findings[0].evidence.front(),
            "h00003 mlx5_0/1: symbol_error +40 (repetition 2) during run " + rows.front().run_id);
  EXPECT_EQ(findings[0].evidence.back(),
            "h00003 mlx5_0/1: symbol_error +7 (repetition 4) during run " + rows.front().run_id);
}

TEST(PortDiagnosis, PortOfAHostTheTopologyLacksIsNamedWithoutACable) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  PortCounterChange down = port_change("gpu17", {});
  down.state_after = "DOWN";
  const std::vector<Finding> findings =
      diagnose_port_counters(fabric.graph, std::vector{down}, pairwise_on(fabric.graph, fabric));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].subject, "gpu17 mlx5_0/1: state ACTIVE -> DOWN");
  EXPECT_FALSE(findings[0].link);
  EXPECT_EQ(*findings[0].confidence, 0);
  EXPECT_EQ(findings[0].evidence.back(), "no pair touching this host was measured in the run");
}

// Four repetitions of pairwise; in `throttled` ones h00003's cable runs at a quarter.
std::vector<ResultRow> soak(const TwoLeafFabric& fabric, const std::set<int>& throttled) {
  Graph slow = fabric.graph;
  slow.set_link_capacity(fabric.host_links[2], host_link_gbps / 4);
  std::vector<ResultRow> rows;
  for (int repetition = 0; repetition < 4; ++repetition)
    for (ResultRow row : pairwise_on(throttled.contains(repetition) ? slow : fabric.graph, fabric)) {
      row.repetition = repetition;
      rows.push_back(std::move(row));
    }
  return rows;
}

TEST(IntermittentDiagnosis, AHostLinkThrottledInSomeRepetitionsIsNamedWithThem) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  const std::vector<Finding> findings = diagnose_intermittent(fabric.graph, soak(fabric, {1, 2})).findings;
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "intermittent_host");
  EXPECT_EQ(findings[0].host, "h00003");
  EXPECT_EQ(findings[0].link, fabric.host_links[2]);  // its cable, both ways
  EXPECT_EQ(findings[0].direction, LinkDirection::both);
  // 7 peers, both ways, in each of the two repetitions.
  // The repetition fields 1 and 2 are the second and third repetitions: text counts from 1.
  EXPECT_EQ(findings[0].subject, "h00003: 14 pairs slow in repetitions 2, 3 only");
  EXPECT_EQ(findings[0].evidence.front().substr(0, 28), "repetition 2: degraded_link ");
  EXPECT_GE(*findings[0].confidence, 0.99);
  EXPECT_NEAR(*findings[0].ratio(), 0.25, 0.05);
}

TEST(IntermittentDiagnosis, ALinkSlowInEveryRepetitionOrNoneIsNotIntermittent) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  EXPECT_TRUE(diagnose_intermittent(fabric.graph, soak(fabric, {})).findings.empty());
  EXPECT_TRUE(diagnose_intermittent(fabric.graph, soak(fabric, {0, 1, 2, 3})).findings.empty());
}

// One pair slow once: no part explains it (every link of its route carried healthy pairs in the
// same repetition), so it is an unexplained slow pair, not a finding that blames anything.
TEST(IntermittentDiagnosis, OnePairSlowOnceIsUnexplainedNotAFinding) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps);
  std::vector<ResultRow> rows = soak(fabric, {});
  const auto victim = std::find_if(rows.begin(), rows.end(), [](const ResultRow& row) {
    return row.repetition == 3 && row.src_host == "h00005" && row.dst_host == "h00001";
  });
  ASSERT_NE(victim, rows.end());
  victim->algbw_gbps /= 3;
  const diagnosis::IntermittentDiagnosis intermittent = diagnose_intermittent(fabric.graph, rows);
  EXPECT_TRUE(intermittent.findings.empty()) << intermittent.findings.front().subject;
  EXPECT_EQ(intermittent.unexplained,
            (std::set<diagnosis::PairMeasurement>{{"simulated", 3, *victim->round, "h00005", "h00001"}}));
}

// Six leaves, three repetitions; in the second the uplink of leaf 1 runs at a quarter (a spine
// cable). Every pair into or out of leaf 1 is slow in that repetition, and pairs sharing a round
// with them are not: the cable is the one finding, named with its repetition, and no pair is.
// (Six leaves, not three: the scale is the median pair's, so the healthy pairs must be most.)
TEST(IntermittentDiagnosis, ASpineCableThrottledInOneRepetitionOfThreeIsNamedExactly) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps, 6);
  Graph slow = fabric.graph;
  slow.set_link_capacity(fabric.uplinks[0], host_link_gbps / 4);
  std::vector<ResultRow> rows;
  for (int repetition = 0; repetition < 3; ++repetition)
    for (ResultRow row : pairwise_on(repetition == 1 ? slow : fabric.graph, fabric)) {
      row.repetition = repetition;
      rows.push_back(std::move(row));
    }
  const diagnosis::IntermittentDiagnosis intermittent = diagnose_intermittent(fabric.graph, rows);
  ASSERT_EQ(intermittent.findings.size(), 1u);
  const Finding& finding = intermittent.findings.front();
  EXPECT_EQ(finding.kind, "intermittent_link");
  EXPECT_EQ(finding.link, fabric.uplinks[0]);
  EXPECT_TRUE(finding.parallel_links.empty());
  EXPECT_TRUE(finding.host.empty());
  // Leaf 1's 4 hosts to and from the other 20.
  // The second repetition (its field 1), as a person counts it.
  EXPECT_EQ(finding.subject, "leaf0001 <-> spine0001 (both directions): 160 pairs slow in repetition 2 only");
  EXPECT_GE(*finding.confidence, 0.99);
  EXPECT_TRUE(intermittent.unexplained.empty());
}

// A host cable degraded throughout and a spine cable in one repetition: diagnose() names the
// host cable over the whole run, the repetitions name the spine cable, and nothing else is named.
TEST(IntermittentDiagnosis, AHostCableAndASpineCableAtOnceAreBothNamedAndNothingElse) {
  const TwoLeafFabric fabric = two_leaf_fabric(4 * host_link_gbps, 6);
  Graph host_slow = fabric.graph;
  host_slow.set_link_capacity(fabric.host_links[5], host_link_gbps / 4);  // h00006
  Graph both_slow = host_slow;
  both_slow.set_link_capacity(fabric.uplinks[0], host_link_gbps / 4);
  std::vector<ResultRow> rows;
  for (int repetition = 1; repetition <= 3; ++repetition)
    for (ResultRow row : pairwise_on(repetition == 2 ? both_slow : host_slow, fabric)) {
      row.repetition = repetition;
      rows.push_back(std::move(row));
    }
  const Diagnosis whole = diagnose(fabric.graph, rows);
  ASSERT_EQ(whole.findings.size(), 1u);
  EXPECT_EQ(whole.findings[0].link, fabric.host_links[5]);
  const std::vector<Finding> intermittent = diagnose_intermittent(fabric.graph, rows).findings;
  ASSERT_EQ(intermittent.size(), 1u) << intermittent.back().subject;
  EXPECT_EQ(intermittent[0].link, fabric.uplinks[0]);
}

}  // namespace
}  // namespace fb::topo
