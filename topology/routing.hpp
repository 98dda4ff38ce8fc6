#pragma once
// Routes as the hardware takes them: inside a host over NVLink when the GPUs have it, else over
// PCIe and the CPU interconnect; across the fabric on shortest up-down paths (never down then
// up), spread ECMP-style over every equal-cost next hop in proportion to link capacity.

#include "topology/graph.hpp"

#include <optional>
#include <vector>

namespace fb::topo {

struct LinkUse {
  LinkId link = 0;
  bool from_a = true;   // direction of travel: a -> b
  double fraction = 0;  // share of the route's traffic on this link in this direction
};

struct Route {
  std::vector<LinkUse> uses;
  int hop_count = 0;
  double latency_us = 0;       // the slowest of the equal-cost paths
  double bottleneck_gbps = 0;  // the most one flow alone can push along the spread paths
};

// Unreachable pairs (or src == dst) have no route.
std::optional<Route> find_route(const Graph& graph, VertexId src, VertexId dst);

// The NIC a GPU sends through: the fewest PCIe hops away; GPUs sharing a switch with several
// NICs take them in ordinal order.
std::optional<VertexId> nearest_nic(const Graph& graph, VertexId gpu);

// The NIC host-memory traffic of `host` leaves through: its lowest-numbered NIC, as MPI's TCP and
// verbs transports pick by default. Empty when the name is not a host or the host has no NIC.
std::optional<VertexId> first_nic_of_host(const Graph& graph, std::string_view host_name);

// Directed-link resource index used by the flow model: 2 * link + (from_a ? 0 : 1).
inline std::size_t directed_link_index(const LinkUse& use) {
  return 2 * static_cast<std::size_t>(use.link) + (use.from_a ? 0 : 1);
}

}  // namespace fb::topo
