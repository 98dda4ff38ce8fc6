// The incident a run records when the watchdog ends it, and the link state it rests on.

#include "benchmarks/core/incident_builder.hpp"
#include "benchmarks/core/link_state.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace fb {
namespace {

using ::testing::ElementsAre;
using testing::TempDir;

RunContext four_ranks_on_three_hosts() {
  RunContext context;
  context.run_id = "run";
  context.backend = "mpi";
  context.placement.nranks = 4;
  context.placement.rank_hosts = {"h1", "h2", "h3", "h2"};
  return context;
}

// Rank 1 went silent, rank 2 waited for it; rank 2 and rank 3 saw links of their hosts go down.
StallReport stall_of_rank_1() {
  StallReport stall;
  stall.case_label = "bw 65536 B, 2 pairs at once";
  stall.deadline_s = 3;
  stall.stalled_s = 3.1;
  stall.coordinator_position = "gathering times";
  stall.ranks = {{0, "h1", true, "gathering times", true, {}},
                 {1, "h2", false, "", false, {}},
                 {2, "h3", true, "timed iteration 2", false, {"ib0"}},
                 {3, "h2", true, "gathering times", true, {"eth0", "mlx5_0/1"}}};
  stall.message = "timeout: ...";
  return stall;
}

BenchmarkCase pairwise_case() {
  BenchmarkCase pairwise;
  pairwise.op = &op_by_name("pairwise");
  pairwise.bytes = 65536;
  pairwise.placement = Placement::out_of_place;
  return pairwise;
}

TEST(TimeoutIncident, NamesTheCaseTheRoundAndEveryRankWithItsHost) {
  const PairRound round{{{0, 3}, {1, 2}}, 3};
  const Incident incident =
      make_timeout_incident(pairwise_case(), &round, stall_of_rank_1(), four_ranks_on_three_hosts());
  EXPECT_EQ(incident.kind, "timeout");
  EXPECT_EQ(incident.op, "pairwise");  // the pattern the user ran, not its primitive
  EXPECT_EQ(incident.case_label, "bw 65536 B, 2 pairs at once");
  EXPECT_EQ(incident.bytes, 65536u);
  EXPECT_FALSE(incident.in_place);
  EXPECT_EQ(incident.step, "gathering times");
  EXPECT_EQ(incident.round, 3);
  EXPECT_THAT(incident.pairs_in_flight, ElementsAre(IncidentPair{0, 3, "h1", "h2"}, IncidentPair{1, 2, "h2", "h3"}));
  EXPECT_THAT(incident.ranks_not_arrived,
              ElementsAre(IncidentRank{1, "h2", false, ""}, IncidentRank{2, "h3", true, "timed iteration 2"}));
  EXPECT_THAT(incident.ranks_arrived, ElementsAre(IncidentRank{0, "h1", true, "gathering times"},
                                                  IncidentRank{3, "h2", true, "gathering times"}));
  EXPECT_THAT(incident.links_lost, ElementsAre(IncidentLink{"h2", "eth0", {3}}, IncidentLink{"h2", "mlx5_0/1", {3}},
                                               IncidentLink{"h3", "ib0", {2}}));
  EXPECT_EQ(incident.deadline_s, 3);
  EXPECT_EQ(incident.stalled_s, 3.1);
  EXPECT_EQ(incident.message, "timeout: ...");
}

// The case set last is the one recorded; a collective has no round and no pairs.
TEST(TimeoutIncident, CaseInFlightRecordsTheCaseSetLast) {
  CaseInFlight in_flight;
  const PairRound round{{{0, 1}}, 1};
  in_flight.set(pairwise_case(), &round);
  BenchmarkCase all_reduce = pairwise_case();
  all_reduce.op = &op_by_name("all_reduce");
  all_reduce.placement = Placement::in_place;
  in_flight.set(all_reduce);
  const Incident incident = in_flight.timeout_incident(stall_of_rank_1(), four_ranks_on_three_hosts());
  EXPECT_EQ(incident.op, "all_reduce");
  EXPECT_TRUE(incident.in_place);
  EXPECT_FALSE(incident.round);
  EXPECT_TRUE(incident.pairs_in_flight.empty());
}

// Two processes driving two GPUs each: the incident names GPU ranks, as the results rows do, so
// process 1's silence is the silence of ranks 2 and 3, on its host.
TEST(TimeoutIncident, ProcessesDrivingSeveralGpusStandForEachOfTheirRanks) {
  StallReport stall = stall_of_rank_1();
  stall.ranks.resize(2);
  RunContext context = four_ranks_on_three_hosts();
  context.placement.rank_hosts = {"h1", "h1", "h2", "h2"};
  const PairRound round{{{1, 2}}, 1};
  const Incident incident = make_timeout_incident(pairwise_case(), &round, per_device_rank(stall, 2), context);
  EXPECT_THAT(incident.pairs_in_flight, ElementsAre(IncidentPair{1, 2, "h1", "h2"}));
  EXPECT_THAT(incident.ranks_arrived, ElementsAre(IncidentRank{0, "h1", true, "gathering times"},
                                                  IncidentRank{1, "h1", true, "gathering times"}));
  EXPECT_THAT(incident.ranks_not_arrived,
              ElementsAre(IncidentRank{2, "h2", false, ""}, IncidentRank{3, "h2", false, ""}));
  EXPECT_EQ(incident.message, stall.message);
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(LinkState, ListsInterfacesUpAndActiveRdmaPorts) {
  const TempDir sysfs;
  write_file(sysfs / "class/net/lo/operstate", "unknown\n");
  write_file(sysfs / "class/net/eth0/operstate", "up\n");
  write_file(sysfs / "class/net/eth1/operstate", "lowerlayerdown\n");
  write_file(sysfs / "class/net/ib0/operstate", "down\n");
  write_file(sysfs / "class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
  write_file(sysfs / "class/infiniband/mlx5_1/ports/1/state", "1: DOWN\n");
  EXPECT_THAT(links_up(sysfs.path()), ElementsAre("eth0", "mlx5_0/1"));
  EXPECT_TRUE(links_up(sysfs / "absent").empty());
}

TEST(LinkState, LostLinksAreThoseUpBeforeAndNotNow) {
  EXPECT_THAT(links_lost({"eth0", "ib0", "mlx5_0/1"}, {"eth1", "ib0"}), ElementsAre("eth0", "mlx5_0/1"));
  EXPECT_TRUE(links_lost({"eth0"}, {"eth0", "eth1"}).empty());
}

}  // namespace
}  // namespace fb
