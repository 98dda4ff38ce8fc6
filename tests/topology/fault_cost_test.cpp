// What a fault costs the job mix, on the genuine 8-host fabric of tests/topology/fixtures/forwarding:
// a host cable at a quarter slows every ring and every alltoall through that host 4x; one of a
// leaf's four uplink cables at a quarter costs far less, since the other three carry the rest.

#include "common/errors.hpp"
#include "diagnosis/fault_cost.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace fb::topo {

using diagnosis::Diagnosis;
using diagnosis::Finding;
using diagnosis::FaultCost;
using diagnosis::MixedJob;
using diagnosis::default_job_mix;
using diagnosis::parse_job_mix;
using diagnosis::describe_job_mix;
using diagnosis::predict_fault_costs;
namespace {

Graph fixture_fabric() {
  return load_topology({std::string(TOPOLOGY_FIXTURES_DIR) + "/forwarding/ftree/ibnetdiscover.txt"});
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
