// How rings cross nodes: NICs, hops inside a host, nearest NICs and each rail's crossing.

#include "topology/collective_rails.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

namespace fb::topo::detail {

std::vector<VertexId> nics_of(const Graph& graph, VertexId host) {
  std::vector<VertexId> nics;
  for (const VertexId device : graph.devices_of(host)) {
    if (graph.vertex(device).kind == VertexKind::nic) nics.push_back(device);
  }
  std::sort(nics.begin(), nics.end(),
            [&](VertexId a, VertexId b) { return graph.vertex(a).index < graph.vertex(b).index; });
  return nics;
}

std::optional<int> HostHops::between(VertexId from, VertexId to) {
  if (graph_.vertex(to).host != graph_.vertex(from).host) return std::nullopt;
  const int hops = tables_[table(from)][host_routes_.position(to)];
  return hops == unreached ? std::nullopt : std::optional<int>(hops);
}

std::uint32_t HostHops::table(VertexId source) {
  std::uint32_t& index = table_of_[source];
  if (index != no_table) return index;
  const std::uint64_t key = std::uint64_t{host_routes_.shape(source)} << 32 | host_routes_.position(source);
  const auto [it, inserted] = table_of_shape_.try_emplace(key, static_cast<std::uint32_t>(tables_.size()));
  index = it->second;
  if (!inserted) return index;
  const VertexId host = graph_.vertex(source).host;
  std::vector<int>& hops = tables_.emplace_back(graph_.devices_of(host).size() + 1, unreached);
  hops[host_routes_.position(source)] = 0;
  std::vector<VertexId> queue{source};
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const VertexId u = queue[head];
    const VertexKind kind = graph_.vertex(u).kind;
    if (u != source && (kind == VertexKind::gpu || kind == VertexKind::host)) continue;
    const int next = hops[host_routes_.position(u)] + 1;
    for (const LinkId l : graph_.links_of(u)) {
      const VertexId w = graph_.link(l).other_end(u);
      if (graph_.vertex(w).host == host && hops[host_routes_.position(w)] == unreached) {
        hops[host_routes_.position(w)] = next;
        queue.push_back(w);
      }
    }
  }
  return index;
}

VertexId NearestNics::of(VertexId rank) {
  if (graph_.vertex(rank).kind == VertexKind::nic) return rank;
  const VertexId host = graph_.vertex(rank).host;
  auto [it, inserted] = nics_by_host_.try_emplace(host);
  if (inserted) it->second = nics_of(graph_, host);
  std::vector<VertexId> nearest;
  int nearest_hops = std::numeric_limits<int>::max();
  for (const VertexId nic : it->second) {
    const std::optional<int> hops = host_hops_.between(nic, rank);
    if (!hops || *hops > nearest_hops) continue;
    if (*hops < nearest_hops) nearest.clear();
    nearest_hops = *hops;
    nearest.push_back(nic);
  }
  if (nearest.empty()) throw InputError(fmt::format("{} has no NIC to reach other nodes", graph_.vertex(rank).name));
  return nearest[static_cast<std::size_t>(std::max(graph_.vertex(rank).index, 0)) % nearest.size()];
}

RailCrossing RailPlanner::plan(VertexId nic) {
  std::vector<std::pair<int, VertexId>> by_distance;
  for (const VertexId rank : local_) {
    const std::optional<int> hops = host_hops_.between(nic, rank);
    if (!hops) throw InputError(fmt::format("{} cannot reach {}", graph_.vertex(rank).name, graph_.vertex(nic).name));
    by_distance.emplace_back(*hops, rank);
  }
  const auto pick = [&](std::map<VertexId, int>& uses, VertexId excluded) {
    VertexId best = no_vertex;
    std::tuple<int, int> best_key{std::numeric_limits<int>::max(), 0};
    for (const auto& [distance, rank] : by_distance) {
      if (rank == excluded) continue;
      const std::tuple<int, int> key{distance, uses[rank]};
      if (key < best_key) {
        best_key = key;
        best = rank;
      }
    }
    return std::pair{best, std::get<0>(best_key)};
  };
  RailCrossing crossing;
  crossing.nic = nic;
  const auto [entry, entry_distance] = pick(entry_uses_, no_vertex);
  crossing.entry = crossing.exit = crossing.via = entry;
  ++entry_uses_[entry];
  if (local_.size() > 1) {
    const auto [exit, exit_distance] = pick(exit_uses_, entry);
    crossing.exit = exit;
    crossing.via = exit_distance > entry_distance ? entry : exit;
    ++exit_uses_[exit];
  }
  return crossing;
}

void RailPlanner::order(const RailCrossing& crossing, std::vector<VertexId>& order) const {
  order.assign(1, crossing.entry);
  for (const VertexId rank : local_) {
    if (rank != crossing.entry && rank != crossing.exit) order.push_back(rank);
  }
  if (crossing.exit != crossing.entry) order.push_back(crossing.exit);
}

std::vector<std::vector<VertexId>> ranks_by_host(const Graph& graph, std::span<const VertexId> ranks) {
  std::vector<std::vector<VertexId>> local_ranks;
  std::map<VertexId, std::size_t> slot_of_host;
  // Placements list a host's ranks together: the map is asked once per run of ranks on one host,
  // not once per rank (a million lookups in a tree of 125,000 hosts).
  std::optional<VertexId> last_host;
  std::size_t last_slot = 0;
  for (const VertexId rank : ranks) {
    const VertexId host = graph.vertex(rank).host;
    if (host != last_host) {
      const auto [it, inserted] = slot_of_host.try_emplace(host, local_ranks.size());
      if (inserted) local_ranks.emplace_back();
      last_host = host;
      last_slot = it->second;
    }
    local_ranks[last_slot].push_back(rank);
  }
  return local_ranks;
}

std::vector<std::vector<RailCrossing>> plan_rails(const Graph& graph, HostRoutes& host_routes, HostHops& host_hops,
                                                  const std::vector<std::vector<VertexId>>& local_ranks,
                                                  std::vector<RailPlanner>& planners) {
  std::size_t rails = std::numeric_limits<std::size_t>::max();
  std::vector<std::vector<VertexId>> node_nics;
  for (const auto& local : local_ranks) {
    node_nics.push_back(nics_of(graph, graph.vertex(local.front()).host));
    rails = std::min(rails, node_nics.back().size());
  }
  if (rails == 0) throw InputError("a multi-node placement needs a NIC on every node");
  for (const auto& local : local_ranks) planners.emplace_back(graph, host_hops, local);
  // Nodes of one host shape with their ranks and rails' NICs at the same positions cross alike:
  // the first such node plans, the others take its crossings by position.
  std::map<std::vector<std::uint32_t>, std::size_t> first_alike;
  std::vector<std::size_t> planned_by;  // per node: the node whose plans it takes
  for (std::size_t node = 0; node < local_ranks.size(); ++node) {
    std::vector<std::uint32_t> key{host_routes.shape(local_ranks[node].front())};
    for (const VertexId rank : local_ranks[node]) key.push_back(host_routes.position(rank));
    key.push_back(no_vertex);
    for (std::size_t r = 0; r < rails; ++r) key.push_back(host_routes.position(node_nics[node][r]));
    planned_by.push_back(first_alike.try_emplace(std::move(key), node).first->second);
  }
  const auto at_position_of = [&](VertexId vertex, VertexId host) {
    const std::uint32_t position = host_routes.position(vertex);
    return position == 0 ? host : graph.devices_of(host)[position - 1];
  };
  std::vector<std::vector<RailCrossing>> crossings(rails);
  for (std::size_t r = 0; r < rails; ++r) {
    auto& rail = crossings[r];
    for (std::size_t node = 0; node < local_ranks.size(); ++node) {
      const VertexId nic = node_nics[node][r];
      if (planned_by[node] == node) {
        rail.push_back(planners[node].plan(nic));
        continue;
      }
      const RailCrossing& alike = rail[planned_by[node]];
      const VertexId host = graph.vertex(nic).host;
      rail.push_back(
          {nic, at_position_of(alike.entry, host), at_position_of(alike.exit, host), at_position_of(alike.via, host)});
    }
  }
  return crossings;
}

}  // namespace fb::topo::detail
