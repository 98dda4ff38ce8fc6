#include "common/rank_placement.hpp"

#include <algorithm>
#include <unordered_map>

namespace fb {

RankPlacement placement_of(std::vector<std::string> rank_hosts, int rank) {
  RankPlacement placement;
  placement.rank = rank;
  placement.nranks = static_cast<int>(rank_hosts.size());
  std::unordered_map<std::string, int> ranks_on_host;
  for (const std::string& host : rank_hosts) placement.ranks_per_node = std::max(placement.ranks_per_node, ++ranks_on_host[host]);
  placement.nodes = static_cast<int>(ranks_on_host.size());
  placement.rank_hosts = std::move(rank_hosts);
  return placement;
}

}  // namespace fb
