#include "topology/routing.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <unordered_map>

namespace fb::topo {
namespace {

bool may_transit(const Vertex& v) {
  switch (v.kind) {
    case VertexKind::cpu:
    case VertexKind::pcie_switch:
    case VertexKind::nvswitch:
    case VertexKind::nic:
    case VertexKind::fabric_switch: return true;
    case VertexKind::host:
    case VertexKind::gpu: return false;
  }
  return false;
}

// A search state: the vertex and whether the path has already turned downwards.
using StateKey = std::uint64_t;
StateKey key_of(VertexId v, bool went_down) { return (static_cast<StateKey>(v) << 1) | (went_down ? 1 : 0); }
VertexId vertex_of(StateKey key) { return static_cast<VertexId>(key >> 1); }

struct Edge {
  StateKey from;
  LinkId link;
};

struct NextHop {
  StateKey to;
  LinkId link;
};

struct StateInfo {
  int distance = 0;
  std::vector<Edge> predecessors;  // every edge reaching this state on a shortest path
};

struct SearchRules {
  bool nvlink_only = false;
  VertexId confine_to_host = no_vertex;  // stay inside this host when set
};

// NOLINTNEXTLINE(readability-function-cognitive-complexity): a breadth-first search with the routing rules (up-down, host confinement, NIC affinity) checked per edge; splitting it would pass its state around
std::optional<Route> search(const Graph& graph, VertexId src, VertexId dst, const SearchRules& rules) {
  std::unordered_map<StateKey, StateInfo> states;
  std::deque<StateKey> queue;
  const StateKey start = key_of(src, false);
  states[start] = StateInfo{};
  queue.push_back(start);
  int dst_distance = std::numeric_limits<int>::max();
  while (!queue.empty()) {
    const StateKey current = queue.front();
    queue.pop_front();
    const VertexId u = vertex_of(current);
    const int distance = states[current].distance;
    if (distance >= dst_distance) break;
    if (u != src && !may_transit(graph.vertex(u))) continue;
    const bool went_down = (current & 1) != 0;
    for (const LinkId l : graph.links_of(u)) {
      const Link& link = graph.link(l);
      if (rules.nvlink_only && link.spec.type != LinkType::nvlink && link.spec.type != LinkType::xgmi) continue;
      const VertexId w = link.other_end(u);
      if (rules.confine_to_host != no_vertex && graph.vertex(w).host != rules.confine_to_host) continue;
      const int rank_u = routing_rank(graph.vertex(u));
      const int rank_w = routing_rank(graph.vertex(w));
      if (rank_w > rank_u && went_down) continue;  // no valley: up after down
      const StateKey next = key_of(w, went_down || rank_w < rank_u);
      const auto [it, inserted] = states.try_emplace(next, StateInfo{distance + 1, {}});
      if (inserted) {
        queue.push_back(next);
        if (w == dst) dst_distance = distance + 1;
      }
      if (it->second.distance == distance + 1) it->second.predecessors.push_back({current, l});
    }
  }
  if (dst_distance == std::numeric_limits<int>::max()) return std::nullopt;

  // States on some shortest path, found backwards from the destination states.
  std::vector<StateKey> on_path;
  std::unordered_map<StateKey, std::vector<NextHop>> successors;
  std::deque<StateKey> backwards;
  std::unordered_map<StateKey, bool> marked;
  for (const bool down : {false, true}) {
    const auto it = states.find(key_of(dst, down));
    if (it != states.end() && it->second.distance == dst_distance) {
      backwards.push_back(it->first);
      marked[it->first] = true;
    }
  }
  while (!backwards.empty()) {
    const StateKey s = backwards.front();
    backwards.pop_front();
    on_path.push_back(s);
    for (const Edge& edge : states[s].predecessors) {
      successors[edge.from].push_back({s, edge.link});
      if (!marked[edge.from]) {
        marked[edge.from] = true;
        backwards.push_back(edge.from);
      }
    }
  }
  std::sort(on_path.begin(), on_path.end(),
            [&](StateKey a, StateKey b) { return states[a].distance < states[b].distance; });

  // Spread one unit of traffic forward, splitting at each state over its next hops in
  // proportion to their capacity, as ECMP over equal links and NVLink striping both do.
  std::unordered_map<StateKey, double> inflow{{start, 1.0}};
  std::unordered_map<StateKey, double> latency{{start, 0.0}};
  std::map<std::pair<LinkId, bool>, double> fractions;
  for (const StateKey s : on_path) {
    const auto next = successors.find(s);
    if (next == successors.end()) continue;
    double total_capacity = 0;
    for (const NextHop& hop : next->second) total_capacity += graph.link(hop.link).spec.capacity_gbps;
    for (const NextHop& hop : next->second) {
      const Link& link = graph.link(hop.link);
      const double weight = total_capacity > 0 ? link.spec.capacity_gbps / total_capacity
                                               : 1.0 / static_cast<double>(next->second.size());
      const double share = inflow[s] * weight;
      inflow[hop.to] += share;
      fractions[{hop.link, link.a == vertex_of(s)}] += share;
      latency[hop.to] = std::max(latency[hop.to], latency[s] + link.spec.latency_us);
    }
  }
  Route route;
  route.hop_count = dst_distance;
  route.bottleneck_gbps = std::numeric_limits<double>::infinity();
  for (const auto& [link_direction, fraction] : fractions) {
    route.uses.push_back({link_direction.first, link_direction.second, fraction});
    route.bottleneck_gbps =
        std::min(route.bottleneck_gbps, graph.link(link_direction.first).spec.capacity_gbps / fraction);
  }
  for (const bool down : {false, true}) {
    const auto it = latency.find(key_of(dst, down));
    if (it != latency.end()) route.latency_us = std::max(route.latency_us, it->second);
  }
  return route;
}

}  // namespace

std::optional<Route> find_route(const Graph& graph, VertexId src, VertexId dst) {
  if (src == dst) return std::nullopt;
  const VertexId host = graph.vertex(src).host;
  if (host != no_vertex && host == graph.vertex(dst).host) {
    // GPUs talk over NVLink when they share it; peer traffic never relays through a third GPU.
    if (auto nvlink = search(graph, src, dst, {true, host})) return nvlink;
    return search(graph, src, dst, {false, host});
  }
  return search(graph, src, dst, {false, no_vertex});
}

std::optional<VertexId> nearest_nic(const Graph& graph, VertexId gpu) {
  const VertexId host = graph.vertex(gpu).host;
  std::vector<VertexId> nearest;
  int nearest_hops = std::numeric_limits<int>::max();
  for (const VertexId candidate : graph.devices_of(host)) {
    if (graph.vertex(candidate).kind != VertexKind::nic) continue;
    const std::optional<Route> route = search(graph, gpu, candidate, {false, host});
    if (!route || route->hop_count > nearest_hops) continue;
    if (route->hop_count < nearest_hops) nearest.clear();
    nearest_hops = route->hop_count;
    nearest.push_back(candidate);
  }
  if (nearest.empty()) return std::nullopt;
  // Two GPUs and two NICs behind one PCIe switch pair up by ordinal, as NCCL assigns them, so
  // they do not both funnel through the first NIC.
  std::sort(nearest.begin(), nearest.end(),
            [&](VertexId a, VertexId b) { return graph.vertex(a).index < graph.vertex(b).index; });
  const auto ordinal = static_cast<std::size_t>(std::max(graph.vertex(gpu).index, 0));
  return nearest[ordinal % nearest.size()];
}

std::optional<VertexId> first_nic_of_host(const Graph& graph, std::string_view host_name) {
  const VertexId host = graph.find(host_name);
  if (host == no_vertex || graph.vertex(host).kind != VertexKind::host) return std::nullopt;
  std::optional<VertexId> nic;
  for (const VertexId device : graph.devices_of(host))
    if (graph.vertex(device).kind == VertexKind::nic && (!nic || graph.vertex(device).index < graph.vertex(*nic).index))
      nic = device;
  return nic;
}

}  // namespace fb::topo
