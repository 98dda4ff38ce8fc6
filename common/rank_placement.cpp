#include "common/rank_placement.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace fb {

NodeCount count_nodes(std::span<const std::string> rank_hosts) {
  NodeCount count;
  std::unordered_map<std::string_view, int> ranks_on_host;
  for (const std::string& host : rank_hosts)
    if (!host.empty()) count.ranks_per_node = std::max(count.ranks_per_node, ++ranks_on_host[host]);
  count.nodes = static_cast<int>(ranks_on_host.size());
  return count;
}

RankPlacement placement_of(std::vector<std::string> rank_hosts, int rank) {
  const NodeCount count = count_nodes(rank_hosts);
  RankPlacement placement;
  placement.rank = rank;
  placement.nranks = static_cast<int>(rank_hosts.size());
  placement.nodes = count.nodes;
  placement.ranks_per_node = count.ranks_per_node;
  placement.rank_hosts = std::move(rank_hosts);
  return placement;
}

}  // namespace fb
