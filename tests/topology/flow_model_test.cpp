// Max-min fair sharing over flows built of shared pieces (what topo predict solves) against hand
// computed rates, and against the same flows as classes that list their own resources.
#include "topology/flow_model.hpp"
#include "topology/pod_array.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <vector>

namespace fb::topo {
namespace {

// Resources: 0 a 100 GB/s link, 1 a 30 GB/s link, 2 a 10 GB/s link.
const std::vector<double> capacity_gbps{100, 30, 10};
// Pieces: 0 crosses link 0, 1 crosses link 1, 2 crosses half of link 2 (an even two-way split),
// 3 crosses nothing.
const std::vector<ResourceShare> shares{{0, 1.0}, {1, 1.0}, {2, 0.5}};
const std::vector<std::uint32_t> first_share{0, 1, 2, 3, 3};

void expect_rates(std::span<const double> solved_gbps, const std::vector<double>& rate_gbps) {
  ASSERT_EQ(solved_gbps.size(), rate_gbps.size());
  for (std::size_t f = 0; f < rate_gbps.size(); ++f) EXPECT_DOUBLE_EQ(solved_gbps[f], rate_gbps[f]) << "flow " << f;
}

// The piece solver and the class solver agree exactly on the same flows.
void expect_same_allocation(const PieceSolver& solver, std::span<const double> rate_gbps,
                            const MaxMinAllocation& by_classes) {
  EXPECT_EQ(std::vector<double>(rate_gbps.begin(), rate_gbps.end()), by_classes.rate_gbps);
  for (std::uint32_t r = 0; r < capacity_gbps.size(); ++r) {
    EXPECT_EQ(solver.load_gbps(r), by_classes.load_gbps[r]) << "resource " << r;
    EXPECT_EQ(solver.saturated(r), by_classes.saturated[r]) << "resource " << r;
  }
  EXPECT_EQ(solver.rounds(), by_classes.rounds);
}

TEST(PieceFlows, SharedPiecesFillInMaxMinOrder) {
  // Flow A: link 0. Flow B: link 0 then link 1. Flow C: link 1. Flow D: half of link 2.
  const std::vector<std::uint32_t> piece_of_use{0, 0, 1, 1, 2};
  const std::vector<std::uint32_t> first_use{0, 1, 3, 4, 5};
  PieceSolver solver(capacity_gbps);
  const std::span<const double> rate_gbps = solver.solve(PieceFlows{shares, first_share, piece_of_use, first_use, {}});
  // Link 2 fills first (10 GB/s at half the traffic: 20 for D), then link 1 between B and C
  // (15 each), then A takes what B leaves of link 0.
  expect_rates(rate_gbps, {85.0, 15.0, 15.0, 20.0});
  EXPECT_DOUBLE_EQ(solver.load_gbps(0), 100.0);
  EXPECT_DOUBLE_EQ(solver.load_gbps(1), 30.0);
  EXPECT_DOUBLE_EQ(solver.load_gbps(2), 10.0);
  EXPECT_TRUE(solver.saturated(0) && solver.saturated(1) && solver.saturated(2));
  EXPECT_EQ(solver.rounds(), 3);
}

TEST(PieceFlows, AgreesWithClassesListingTheirOwnResources) {
  // Three flows on link 0 and two of them on link 1 too; the last crosses only an empty piece.
  const std::vector<std::uint32_t> piece_of_use{0, 0, 1, 0, 1, 3};
  const std::vector<std::uint32_t> first_use{0, 1, 3, 5, 6};
  PieceSolver solver(capacity_gbps);
  const std::span<const double> rate_gbps = solver.solve(PieceFlows{shares, first_share, piece_of_use, first_use, {}});

  const std::span<const ResourceShare> link0(&shares[0], 1);
  const std::span<const ResourceShare> link1(&shares[1], 1);
  const std::vector<FlowClass> classes{{{link0}, 1}, {{link0, link1}, 1}, {{link0, link1}, 1}, {{}, 1}};
  const MaxMinAllocation by_classes = solve_max_min(capacity_gbps, classes);

  expect_same_allocation(solver, rate_gbps, by_classes);
  // Link 1 fills at 15 each for the two flows on it; the first flow then gets 70 of link 0; the
  // flow that crosses nothing is given no rate.
  expect_rates(rate_gbps, {70.0, 15.0, 15.0, 0.0});
}

TEST(PieceFlows, WeightedFlowsCountAsThatManyFlows) {
  // Flow A (weight 3, another job's three connections) and flow B (weight 1) share link 1; flow
  // C (weight 0.5) shares link 0 with B; flow D of weight 0 crosses link 2.
  const std::vector<std::uint32_t> piece_of_use{1, 1, 0, 0, 2};
  const std::vector<std::uint32_t> first_use{0, 1, 3, 4, 5};
  const std::vector<double> weight{3, 1, 0.5, 0};
  PieceSolver solver(capacity_gbps);
  const std::span<const double> rate_gbps =
      solver.solve(PieceFlows{shares, first_share, piece_of_use, first_use, weight});

  const std::span<const ResourceShare> link0(&shares[0], 1);
  const std::span<const ResourceShare> link1(&shares[1], 1);
  const std::span<const ResourceShare> half_link2(&shares[2], 1);
  const std::vector<FlowClass> classes{{{link1}, 3}, {{link1, link0}, 1}, {{link0}, 0.5}, {{half_link2}, 0}};
  const MaxMinAllocation by_classes = solve_max_min(capacity_gbps, classes);

  expect_same_allocation(solver, rate_gbps, by_classes);
  // Link 1 fills at 30 / (3 + 1) = 7.5 per flow; C then takes link 0's 100 - 7.5 at half weight:
  // 185 GB/s per flow. A flow of weight 0 is given no rate and loads nothing.
  expect_rates(rate_gbps, {7.5, 7.5, 185.0, 0.0});
  EXPECT_DOUBLE_EQ(solver.load_gbps(0), 100.0);
  EXPECT_EQ(solver.load_gbps(2), 0.0);
  EXPECT_EQ(solver.rounds(), 2);
}

TEST(PieceFlows, ASolverLeavesNothingOfOneSolveToTheNext) {
  // A model runs many solves through one solver: loads, full links and piece counts of one must
  // not leak into the next. First link 1 and link 2 fill (three flows); then one flow on link 1
  // alone must get all of it, and link 2, untouched now, must read empty and not full.
  const std::vector<std::uint32_t> busy_uses{1, 1, 2};
  const std::vector<std::uint32_t> busy_first{0, 1, 2, 3};
  const std::vector<std::uint32_t> alone_uses{1};
  const std::vector<std::uint32_t> alone_first{0, 1};
  PieceSolver solver(capacity_gbps);
  expect_rates(solver.solve(PieceFlows{shares, first_share, busy_uses, busy_first, {}}), {15.0, 15.0, 20.0});
  ASSERT_TRUE(solver.saturated(2));

  const std::span<const double> rate_gbps = solver.solve(PieceFlows{shares, first_share, alone_uses, alone_first, {}});
  expect_rates(rate_gbps, {30.0});
  EXPECT_DOUBLE_EQ(solver.load_gbps(1), 30.0);
  EXPECT_EQ(solver.load_gbps(2), 0.0);
  EXPECT_FALSE(solver.saturated(2));
  EXPECT_EQ(solver.rounds(), 1);

  // And a fresh solver gives the same answer to the busy flows again.
  PieceSolver fresh(capacity_gbps);
  const std::span<const double> again = solver.solve(PieceFlows{shares, first_share, busy_uses, busy_first, {}});
  const std::span<const double> first = fresh.solve(PieceFlows{shares, first_share, busy_uses, busy_first, {}});
  EXPECT_TRUE(std::equal(again.begin(), again.end(), first.begin(), first.end()));
}

// A PodArray keeps every value through its growth (realloc moves or remaps the block) and
// appends another array's values in order.
TEST(PodArray, KeepsItsValuesWhileGrowingAndAppends) {
  PodArray<ResourceShare> grown;
  for (std::uint32_t i = 0; i < 100000; ++i) grown.push_back({i, 0.5 * i});
  ASSERT_EQ(grown.size(), 100000u);
  for (std::uint32_t i = 0; i < 100000; i += 997) {
    EXPECT_EQ(grown[i].resource, i);
    EXPECT_EQ(grown[i].share, 0.5 * i);
  }
  PodArray<ResourceShare> copy;
  copy.push_back({7, 1.0});
  copy.append(grown.begin() + 10, grown.begin() + 13);
  const std::span<const ResourceShare> view = copy;
  ASSERT_EQ(view.size(), 4u);
  EXPECT_EQ(view[0].resource, 7u);
  EXPECT_EQ(view[1].resource, 10u);
  EXPECT_EQ(view[3].resource, 12u);
  PodArray<ResourceShare> moved = std::move(copy);
  EXPECT_EQ(moved.size(), 4u);
  EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): a moved-from array is empty, which this checks
}

}  // namespace
}  // namespace fb::topo
