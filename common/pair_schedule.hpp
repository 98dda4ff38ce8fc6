#pragma once
// Scheduling of the pair patterns. `pairwise` measures every pair of endpoints in rounds of
// disjoint pairs (a round-robin tournament), so every endpoint is busy every round and the run
// takes O(N) rounds, not O(N^2) pair tests. `concurrent` measures the pairs across a cut first one
// at a time, then all at once: the drop between the two is what blocking costs.

#include "common/rank_placement.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace fb {

// Pairs measured at the same time. Rounds are numbered from 1 in the order they run, so the rows
// of one round in the results are the flows that shared the fabric.
struct PairRound {
  std::vector<RankPair> pairs;
  int round = 0;
};

enum class PairEndpoints { hosts, ranks };
enum class CutKind { halves, random };

PairEndpoints parse_pair_endpoints(std::string_view text);  // throws UsageError
CutKind parse_cut(std::string_view text);                   // throws UsageError

// The ranks that stand for the endpoints: the first rank on each host, in rank order, or every
// rank.
std::vector<int> pair_endpoint_ranks(const RankPlacement& placement, PairEndpoints endpoints);

// Circle-method tournament over the endpoints: N-1 pairings for even N, N for odd (one endpoint
// sits out each), each run twice, once per direction, so every ordered pair is measured once.
std::vector<PairRound> pairwise_rounds(std::span<const int> endpoint_ranks);

// The pairs across the cut, each alone and then all together (the last round). `halves` pairs
// endpoint i with endpoint i + N/2: with hosts listed leaf by leaf that is leaf to leaf. `random`
// draws a random matching from `seed`, so a run can be repeated exactly.
std::vector<PairRound> concurrent_rounds(std::span<const int> endpoint_ranks, CutKind cut, std::uint64_t seed);

}  // namespace fb
