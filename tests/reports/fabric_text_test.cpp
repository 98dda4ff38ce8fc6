// The troubleshooting judgement on the console as `diagnose` prints it: each ranked finding's cost
// line (why the model cannot price an intermittent link, as the judgement worded it; the slowdown
// of a priced one) and the repetition of an unexplained slow pair as a person counts it, with the
// results' field beside it.

#include "reports/console/fabric_text.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

namespace fb {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

diagnosis::FabricJudgement judged_with_topology() {
  diagnosis::FabricJudgement judged;
  judged.topology_given = true;
  judged.job_mix = "all_reduce 1G + alltoall 1G across every node";
  judged.cost_basis = "routes unknown: uplinks pooled";
  return judged;
}

std::string printed(const diagnosis::FabricJudgement& judged) {
  std::ostringstream out;
  print_fabric_judgement(out, judged);
  return out.str();
}

TEST(FabricText, AnIntermittentLinkSaysWhyItHasNoCostAndAPricedFindingItsSlowdown) {
  diagnosis::FabricJudgement judged = judged_with_topology();
  diagnosis::Finding slow{.kind = "slow_node", .subject = "h00006"};
  slow.set_bandwidth_gbps(0.1182, 0.07062);
  judged.ranked.push_back({.finding = slow,
                           .rank = 1,
                           .cost = diagnosis::FaultCost{0.598, "h00006/eth0 <-> leaf0002 at 0.60 of its capacity"}});
  const diagnosis::Finding intermittent{
      .kind = "intermittent_link",
      .subject = "leaf0001 <-> spine0001 (both directions): 160 pairs slow in repetition 2 only"};
  judged.ranked.push_back({.finding = intermittent, .rank = 2, .no_cost = diagnosis::no_cost_text(intermittent)});
  const std::string text = printed(judged);
  EXPECT_THAT(text, HasSubstr("      rank 1: +59.8% predicted for the job mix (h00006/eth0 <-> leaf0002 at 0.60 of its "
                              "capacity)\n"));
  EXPECT_THAT(text, HasSubstr("      rank 2: no predicted cost (an intermittent fault has no steady degraded rate "
                              "for the model to price: what it costs a job depends on when and for how long it "
                              "drops)\n"));
  EXPECT_THAT(text, Not(HasSubstr("the model has no rate to degrade for it")));
}

// The first repetition of a soak is the field's 0: it is named, as "repetition 1", with the field
// beside it; a pair of a run without repetitions names none.
TEST(FabricText, AnUnexplainedSlowPairNamesItsRepetitionFromOneAndTheFieldsValue) {
  diagnosis::FabricJudgement judged = judged_with_topology();
  judged.diagnosis.unexplained_slow_pairs.push_back({"soak", "h00002", "h00007", 1, 0, 0.303});
  judged.diagnosis.unexplained_slow_pairs.push_back({"plain", "h00003", "h00005", 4, std::nullopt, 0.41});
  const std::string text = printed(judged);
  EXPECT_THAT(text, HasSubstr("#   unexplained: h00002 -> h00007 (run soak, round 1, repetition 1, the results' "
                              "repetition 0) at 0.303 of its expectation\n"));
  EXPECT_THAT(text, HasSubstr("#   unexplained: h00003 -> h00005 (run plain, round 4) at 0.410 of its expectation\n"));
}

}  // namespace
}  // namespace fb
