#pragma once
// Scheduling of the pair patterns. `pairwise` measures every pair of endpoints in rounds of
// disjoint pairs (a round-robin tournament), so every endpoint is busy every round and the run
// takes O(N) rounds, not O(N^2) pair tests. `concurrent` measures the pairs across a cut first one
// at a time, then all at once: the drop between the two is what blocking costs.

#include "common/rank_placement.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
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

// Names in the order a person reads them: runs of digits compare as numbers, so h2 comes before
// h10 and h1000 after h999 (not between h100 and h101, as a string sort puts it). Leading zeros do
// not change a number's place; names equal that way fall back to the string order.
bool natural_less(std::string_view a, std::string_view b);

// The ranks that stand for the endpoints: the first rank on each host, in rank order, or every
// rank.
std::vector<int> pair_endpoint_ranks(const RankPlacement& placement, PairEndpoints endpoints);

// Circle-method tournament over the endpoints: N-1 pairings for even N, N for odd (one endpoint
// sits out each), each run twice, once per direction, so every ordered pair is measured once.
// `max_pairings` stops it early: the first pairings alone, as a first pass over a large fabric
// measures them (2 * max_pairings rounds).
std::vector<PairRound> pairwise_rounds(std::span<const int> endpoint_ranks,
                                       std::size_t max_pairings = std::numeric_limits<std::size_t>::max());

// The pairs across the cut, each alone and then all together (the last round). `halves` pairs
// endpoint i with endpoint i + N/2: with hosts listed leaf by leaf that is leaf to leaf. `random`
// draws a random matching from `seed`, so a run can be repeated exactly.
std::vector<PairRound> concurrent_rounds(std::span<const int> endpoint_ranks, CutKind cut, std::uint64_t seed);

// Pairs of hosts chosen elsewhere (`diagnose --plan-confirm` writes them): "SRC DST" per line, the
// first sending; a blank line ends a round; '#' starts a comment. Pairs of one round run together.
using HostPairRound = std::vector<std::pair<std::string, std::string>>;
// Throws InputError "FILE:LINE: ..." for a line that is not two host names, a pair of one host,
// a host twice in a round, or a file without pairs.
std::vector<HostPairRound> parse_host_pair_rounds(std::string_view path, std::string_view text);

// The '#' comments of a pairs file that names no pair (a confirm plan with nothing to confirm says
// why in them); empty when the file names a pair.
std::optional<std::vector<std::string>> notes_of_pairless_file(std::string_view text);
// The rounds on the ranks of this run: each host by its first rank. UsageError for a host the run
// does not have.
std::vector<PairRound> host_pair_rounds(const RankPlacement& placement, std::span<const HostPairRound> rounds);

}  // namespace fb
