// Max-min fair sharing over flows built of shared pieces (what topo predict solves) against hand
// computed rates, and against the same flows as classes that list their own resources.
#include "topology/flow_model.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace fb::topo {
namespace {

// Resources: 0 a 100 GB/s link, 1 a 30 GB/s link, 2 a 10 GB/s link.
const std::vector<double> capacity_gbps{100, 30, 10};
// Pieces: 0 crosses link 0, 1 crosses link 1, 2 crosses half of link 2 (an even two-way split),
// 3 crosses nothing.
const std::vector<ResourceShare> shares{{0, 1.0}, {1, 1.0}, {2, 0.5}};
const std::vector<std::uint32_t> first_share{0, 1, 2, 3, 3};

void expect_rates(const MaxMinAllocation& allocation, const std::vector<double>& rate_gbps) {
  ASSERT_EQ(allocation.rate_gbps.size(), rate_gbps.size());
  for (std::size_t f = 0; f < rate_gbps.size(); ++f)
    EXPECT_DOUBLE_EQ(allocation.rate_gbps[f], rate_gbps[f]) << "flow " << f;
}

// The piece solver and the class solver agree exactly on the same flows.
void expect_same_allocation(const MaxMinAllocation& by_pieces, const MaxMinAllocation& by_classes) {
  EXPECT_EQ(by_pieces.rate_gbps, by_classes.rate_gbps);
  EXPECT_EQ(by_pieces.load_gbps, by_classes.load_gbps);
  EXPECT_EQ(by_pieces.saturated, by_classes.saturated);
}

TEST(PieceFlows, SharedPiecesFillInMaxMinOrder) {
  // Flow A: link 0. Flow B: link 0 then link 1. Flow C: link 1. Flow D: half of link 2.
  const std::vector<std::uint32_t> piece_of_use{0, 0, 1, 1, 2};
  const std::vector<std::uint32_t> first_use{0, 1, 3, 4, 5};
  const MaxMinAllocation allocation =
      solve_max_min(capacity_gbps, PieceFlows{shares, first_share, piece_of_use, first_use, {}});
  // Link 2 fills first (10 GB/s at half the traffic: 20 for D), then link 1 between B and C
  // (15 each), then A takes what B leaves of link 0.
  ASSERT_EQ(allocation.rate_gbps.size(), 4u);
  EXPECT_DOUBLE_EQ(allocation.rate_gbps[0], 85.0);
  EXPECT_DOUBLE_EQ(allocation.rate_gbps[1], 15.0);
  EXPECT_DOUBLE_EQ(allocation.rate_gbps[2], 15.0);
  EXPECT_DOUBLE_EQ(allocation.rate_gbps[3], 20.0);
  EXPECT_DOUBLE_EQ(allocation.load_gbps[0], 100.0);
  EXPECT_DOUBLE_EQ(allocation.load_gbps[1], 30.0);
  EXPECT_DOUBLE_EQ(allocation.load_gbps[2], 10.0);
  EXPECT_EQ(allocation.saturated, (std::vector<bool>{true, true, true}));
  EXPECT_EQ(allocation.rounds, 3);
}

TEST(PieceFlows, AgreesWithClassesListingTheirOwnResources) {
  // Three flows on link 0 and two of them on link 1 too; the last crosses only an empty piece.
  const std::vector<std::uint32_t> piece_of_use{0, 0, 1, 0, 1, 3};
  const std::vector<std::uint32_t> first_use{0, 1, 3, 5, 6};
  const MaxMinAllocation by_pieces =
      solve_max_min(capacity_gbps, PieceFlows{shares, first_share, piece_of_use, first_use, {}});

  const std::span<const ResourceShare> link0(&shares[0], 1);
  const std::span<const ResourceShare> link1(&shares[1], 1);
  const std::vector<FlowClass> classes{{{link0}, 1}, {{link0, link1}, 1}, {{link0, link1}, 1}, {{}, 1}};
  const MaxMinAllocation by_classes = solve_max_min(capacity_gbps, classes);

  expect_same_allocation(by_pieces, by_classes);
  // Link 1 fills at 15 each for the two flows on it; the first flow then gets 70 of link 0; the
  // flow that crosses nothing is given no rate.
  expect_rates(by_pieces, {70.0, 15.0, 15.0, 0.0});
}

TEST(PieceFlows, WeightedFlowsCountAsThatManyFlows) {
  // Flow A (weight 3, another job's three connections) and flow B (weight 1) share link 1; flow
  // C (weight 0.5) shares link 0 with B; flow D of weight 0 crosses link 2.
  const std::vector<std::uint32_t> piece_of_use{1, 1, 0, 0, 2};
  const std::vector<std::uint32_t> first_use{0, 1, 3, 4, 5};
  const std::vector<double> weight{3, 1, 0.5, 0};
  const MaxMinAllocation by_pieces =
      solve_max_min(capacity_gbps, PieceFlows{shares, first_share, piece_of_use, first_use, weight});

  const std::span<const ResourceShare> link0(&shares[0], 1);
  const std::span<const ResourceShare> link1(&shares[1], 1);
  const std::span<const ResourceShare> half_link2(&shares[2], 1);
  const std::vector<FlowClass> classes{{{link1}, 3}, {{link1, link0}, 1}, {{link0}, 0.5}, {{half_link2}, 0}};
  const MaxMinAllocation by_classes = solve_max_min(capacity_gbps, classes);

  expect_same_allocation(by_pieces, by_classes);
  // Link 1 fills at 30 / (3 + 1) = 7.5 per flow; C then takes link 0's 100 - 7.5 at half weight:
  // 185 GB/s per flow. A flow of weight 0 is given no rate and loads nothing.
  expect_rates(by_pieces, {7.5, 7.5, 185.0, 0.0});
  EXPECT_DOUBLE_EQ(by_pieces.load_gbps[0], 100.0);
  EXPECT_EQ(by_pieces.load_gbps[2], 0.0);
  EXPECT_EQ(by_pieces.rounds, 2);
}

}  // namespace
}  // namespace fb::topo
