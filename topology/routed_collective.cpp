#include "topology/routed_collective.hpp"

#include "common/errors.hpp"
#include "topology/collective_patterns.hpp"
#include "topology/collective_rails.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>

namespace fb::topo {
namespace {

// Each node's rails, in the order of the node's first rank.
std::vector<std::vector<VertexId>> node_rails(const Graph& graph, std::span<const VertexId> ranks) {
  std::vector<VertexId> hosts;
  std::vector<std::vector<VertexId>> rails;
  for (const VertexId rank : ranks) {
    const VertexId host = graph.vertex(rank).host;
    if (std::find(hosts.begin(), hosts.end(), host) != hosts.end()) continue;
    hosts.push_back(host);
    std::vector<VertexId> nics;
    if (graph.vertex(rank).kind == VertexKind::gpu) {
      nics = detail::nics_of(graph, host);
    } else if (const std::optional<VertexId> first = first_nic_of_host(graph, graph.vertex(host).name)) {
      nics.push_back(*first);
    }
    if (nics.empty())
      throw InputError(fmt::format("{} has no NIC: its ranks cannot reach the fabric", graph.vertex(host).name));
    rails.push_back(std::move(nics));
  }
  return rails;
}

// Node a's rail r to node b's: the same ordinal, or b's NICs taken round.
void add_hop(std::vector<NicFlow>& flows, const std::vector<std::vector<VertexId>>& rails, std::size_t a,
             std::size_t b) {
  for (std::size_t r = 0; r < rails[a].size(); ++r) flows.push_back({rails[a][r], rails[b][r % rails[b].size()]});
}

// NCCL's double binary tree over n nodes (trees.cc): tree 1 in order, tree 2 its mirror for an
// even count and tree 1 shifted by one node for an odd count; every edge carries half the data
// up and down at once.
void add_trees(std::vector<NicFlow>& flows, const std::vector<std::vector<VertexId>>& rails) {
  const int n = static_cast<int>(rails.size());
  const auto placed = [n](int tree, int r) { return tree == 0 ? r : n % 2 == 0 ? n - 1 - r : (r + 1) % n; };
  for (int tree = 0; tree < 2; ++tree) {
    for (int node = 1; node < n; ++node) {
      const auto child = static_cast<std::size_t>(placed(tree, node));
      const auto parent = static_cast<std::size_t>(placed(tree, detail::in_order_parent(node, n)));
      add_hop(flows, rails, child, parent);
      add_hop(flows, rails, parent, child);
    }
  }
}

// Whether node a sends to node b in a grouped point-to-point op: every pair (alltoall), the next
// node (sendrecv), the first node (gather), from the first node (scatter).
bool p2p_sends(ModelledCollective kind, std::size_t a, std::size_t b, std::size_t n) {
  switch (kind) {
    case ModelledCollective::alltoall: return true;
    case ModelledCollective::sendrecv: return b == (a + 1) % n;
    case ModelledCollective::gather: return b == 0;
    case ModelledCollective::scatter: return a == 0;
    default: return false;
  }
}

}  // namespace

std::optional<std::vector<NicFlow>> step_flows(const Graph& graph, std::span<const VertexId> ranks, const OpTraits& op,
                                               Algorithm algorithm) {
  const std::vector<std::vector<VertexId>> rails = node_rails(graph, ranks);
  const std::size_t n = rails.size();
  std::vector<NicFlow> flows;
  if (n < 2) return flows;
  const ModelledCollective kind = op.modelled_as;
  switch (algorithm) {
    case Algorithm::ring:
      // Broadcast and reduce run the ring as a chain from (or to) the root: one hop carries nothing.
      for (std::size_t k = 0; k < n; ++k) {
        const bool chain = kind == ModelledCollective::broadcast || kind == ModelledCollective::reduce;
        if (!chain || k + 1 < n) add_hop(flows, rails, k, (k + 1) % n);
      }
      return flows;
    case Algorithm::tree: add_trees(flows, rails); return flows;
    case Algorithm::p2p:
      for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = 0; b < n; ++b)
          if (a != b && p2p_sends(kind, a, b, n)) add_hop(flows, rails, a, b);
      return flows;
    default: return std::nullopt;
  }
}

RoutedStep::RoutedStep(const Graph& graph, const TableRouter* tables, std::span<const NicFlow> flows)
    : load_(2 * graph.link_count(), 0.0) {
  for (const NicFlow& flow : flows) {
    std::optional<Route> route = tables != nullptr ? tables->route(flow.src_nic, flow.dst_nic) : std::nullopt;
    if (route) ++on_tables_;
    if (!route) route = find_route(graph, flow.src_nic, flow.dst_nic);
    if (!route)
      throw InputError(
          fmt::format("no route from {} to {}", graph.vertex(flow.src_nic).name, graph.vertex(flow.dst_nic).name));
    // The ECMP spread puts a share of the flow on each equal-cost link; a table route the whole.
    for (const LinkUse& use : route->uses) load_[directed_link_index(use)] += use.fraction;
    routes_.push_back(std::move(route->uses));
  }
}

double RoutedStep::slowest_flow_s_per_gb(const Graph& graph) const {
  double slowest = 0;
  for (const std::vector<LinkUse>& uses : routes_) {
    for (const LinkUse& use : uses) {
      const double capacity = graph.link(use.link).spec.capacity_gbps;
      if (capacity > 0) slowest = std::max(slowest, load_[directed_link_index(use)] / capacity);
    }
  }
  return slowest;
}

}  // namespace fb::topo
