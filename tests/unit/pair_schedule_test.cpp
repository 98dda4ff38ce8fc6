#include "common/pair_schedule.hpp"
#include "benchmarks/core/pair_measurements.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <set>

namespace fb {
namespace {

std::vector<int> endpoints(int n) {
  std::vector<int> ranks(static_cast<std::size_t>(n));
  std::iota(ranks.begin(), ranks.end(), 0);
  return ranks;
}

// Every ordered pair exactly once, no endpoint twice in a round, rounds paired by direction.
void expect_round_robin(int n) {
  SCOPED_TRACE(n);
  const auto ranks = endpoints(n);
  const std::vector<PairRound> rounds = pairwise_rounds(ranks);
  const std::size_t expected_rounds = n % 2 == 0 ? static_cast<std::size_t>(n - 1) : static_cast<std::size_t>(n);
  ASSERT_EQ(rounds.size(), 2 * expected_rounds);
  std::set<std::pair<int, int>> ordered_pairs;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    EXPECT_EQ(rounds[i].round, static_cast<int>(i + 1));
    std::set<int> busy;
    for (const RankPair& pair : rounds[i].pairs) {
      EXPECT_TRUE(busy.insert(pair.src).second);
      EXPECT_TRUE(busy.insert(pair.dst).second);
      EXPECT_TRUE(ordered_pairs.insert({pair.src, pair.dst}).second) << pair.src << "->" << pair.dst;
    }
    // Every endpoint is busy every round, but for the one sitting out when n is odd.
    EXPECT_EQ(busy.size(), static_cast<std::size_t>(n - n % 2));
  }
  EXPECT_EQ(ordered_pairs.size(), static_cast<std::size_t>(n * (n - 1)));
}

TEST(PairwiseRounds, EveryOrderedPairOnceInDisjointRounds) {
  for (int n : {2, 3, 4, 5, 8, 9, 16}) expect_round_robin(n);
}

TEST(ConcurrentRounds, HalvesPairsAcrossTheMiddleAloneThenTogether) {
  const auto ranks = endpoints(8);
  const std::vector<PairRound> rounds = concurrent_rounds(ranks, CutKind::halves, 0);
  ASSERT_EQ(rounds.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(rounds[i].round, static_cast<int>(i + 1));
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_THAT(rounds[i].pairs, ::testing::ElementsAre(RankPair{int(i), int(i) + 4}));
  EXPECT_THAT(rounds[4].pairs, ::testing::ElementsAre(RankPair{0, 4}, RankPair{1, 5}, RankPair{2, 6}, RankPair{3, 7}));
}

TEST(ConcurrentRounds, RandomCutIsAPerfectMatchingFixedBySeed) {
  const auto ranks = endpoints(10);
  const auto first = concurrent_rounds(ranks, CutKind::random, 42);
  EXPECT_EQ(first.back().pairs, concurrent_rounds(ranks, CutKind::random, 42).back().pairs);
  EXPECT_NE(first.back().pairs, concurrent_rounds(ranks, CutKind::random, 43).back().pairs);
  std::set<int> used;
  for (const RankPair& pair : first.back().pairs) {
    EXPECT_TRUE(used.insert(pair.src).second);
    EXPECT_TRUE(used.insert(pair.dst).second);
  }
  EXPECT_EQ(used.size(), 10u);
}

TEST(PairEndpointRanks, FirstRankPerHostOrEveryRank) {
  RankPlacement placement;
  placement.nranks = 5;
  placement.rank_hosts = {"a", "a", "b", "c", "c"};
  EXPECT_THAT(pair_endpoint_ranks(placement, PairEndpoints::hosts), ::testing::ElementsAre(0, 2, 3));
  EXPECT_THAT(pair_endpoint_ranks(placement, PairEndpoints::ranks), ::testing::ElementsAre(0, 1, 2, 3, 4));
}

}  // namespace
}  // namespace fb

namespace fb {
namespace {

TEST(PairMeasurements, EachPairTakesTheLaterEndAndBothEndsWrongCounts) {
  // Three ranks, two iterations each: rank r's times are r + 0.1 and r + 0.2, except rank 0's
  // second, which is the slowest.
  const std::vector<double> seconds{0.1, 9.0, 1.1, 1.2, 2.1, 2.2};
  const std::vector<std::uint64_t> wrong{0, 5, 7};
  const std::vector<RankPair> pairs{{0, 2}, {1, 0}};
  const std::vector<Measurement> measured = pair_measurements(pairs, seconds, 2, wrong);
  ASSERT_EQ(measured.size(), 2u);
  EXPECT_EQ(measured[0].pair, (RankPair{0, 2}));
  EXPECT_EQ(measured[0].unit_seconds, (std::vector<double>{2.1, 9.0}));
  EXPECT_EQ(measured[0].wrong, std::optional<std::uint64_t>(7));
  EXPECT_EQ(measured[1].unit_seconds, (std::vector<double>{1.1, 9.0}));
  EXPECT_EQ(measured[1].wrong, std::optional<std::uint64_t>(5));
  // Off the reporting rank there are no times; unchecked cases have no wrong count.
  const std::vector<Measurement> elsewhere = pair_measurements(pairs, {}, 2, {});
  EXPECT_TRUE(elsewhere[0].unit_seconds.empty());
  EXPECT_FALSE(elsewhere[1].wrong.has_value());
}

}  // namespace
}  // namespace fb
