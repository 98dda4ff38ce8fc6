#pragma once
// Where the ranks of a job run: the vocabulary the pair schedule, the measuring backends and the
// diagnosis share.

#include <span>
#include <string>
#include <vector>

namespace fb {

// Two ranks exchanging messages: `src` sends, `dst` receives (both ways for bibw).
struct RankPair {
  int src = 0;
  int dst = 1;
  bool operator==(const RankPair&) const = default;
};

struct RankPlacement {
  int rank = 0;
  int nranks = 1;
  std::vector<std::string> rank_hosts;  // host name of every rank, by rank
  int nodes = 1;
  int ranks_per_node = 1;  // the most ranks on any one node
};

struct NodeCount {
  int nodes = 0;
  int ranks_per_node = 0;  // the most ranks on any one node
};

// The hosts that `rank_hosts` (one host name per rank) names, and the most ranks on one of them.
// An empty name is a rank whose host is not known: it counts towards no node.
NodeCount count_nodes(std::span<const std::string> rank_hosts);

// The placement of `rank` among ranks that run on `rank_hosts` (one host name per rank).
RankPlacement placement_of(std::vector<std::string> rank_hosts, int rank);

}  // namespace fb
