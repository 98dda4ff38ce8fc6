#include "topology/host_routes.hpp"

#include <algorithm>
#include <bit>
#include <limits>

namespace fb::topo {

namespace {
constexpr std::uint32_t unseen = std::numeric_limits<std::uint32_t>::max();
}  // namespace

HostRoutes::HostRoutes(const Graph& graph)
    : graph_(graph), host_slot_(graph.vertex_count(), unseen), position_of_vertex_(graph.vertex_count(), 0) {}

const HostRoutes::HostShape& HostRoutes::shape_of(VertexId host) {
  std::uint32_t& slot = host_slot_[host];
  if (slot != unseen) return hosts_[slot];
  slot = static_cast<std::uint32_t>(hosts_.size());
  HostShape& shape = hosts_.emplace_back();
  shape.vertices.push_back(host);
  for (const VertexId device : graph_.devices_of(host))
    if (device != host) shape.vertices.push_back(device);
  for (std::uint32_t p = 0; p < shape.vertices.size(); ++p) position_of_vertex_[shape.vertices[p]] = p;

  // What a route search reads: each vertex's kind and tier, and each inside link's ends by
  // position, type, capacity and latency. Equal signatures route alike.
  std::vector<std::uint64_t> signature;
  for (const VertexId v : shape.vertices) {
    const Vertex& vertex = graph_.vertex(v);
    signature.push_back(static_cast<std::uint64_t>(vertex.kind) << 8 | static_cast<std::uint64_t>(vertex.tier));
  }
  for (const VertexId v : shape.vertices)
    for (const LinkId l : graph_.links_of(v)) {
      const Link& link = graph_.link(l);
      const VertexId other = link.other_end(v);
      if (graph_.vertex(other).host != host) continue;
      // Listed from the end met first (the lower position); a loop onto v, once.
      const bool listed = other == v ? std::find(shape.links.begin(), shape.links.end(), l) != shape.links.end()
                                     : position_of_vertex_[other] < position_of_vertex_[v];
      if (listed) continue;
      shape.links.push_back(l);
      signature.push_back(std::uint64_t{position_of_vertex_[link.a]} << 32 | position_of_vertex_[link.b]);
      signature.push_back(static_cast<std::uint64_t>(link.spec.type));
      signature.push_back(std::bit_cast<std::uint64_t>(link.spec.capacity_gbps));
      signature.push_back(std::bit_cast<std::uint64_t>(link.spec.latency_us));
    }
  shape.shape =
      shape_ids_.try_emplace(std::move(signature), static_cast<std::uint32_t>(shape_ids_.size())).first->second;
  if (shape.shape == first_host_of_shape_.size()) first_host_of_shape_.push_back(slot);
  const HostShape& first = hosts_[first_host_of_shape_[shape.shape]];
  // Equal signatures list as many links.
  shape.link_shift = shape.links.empty() ? 0 : shape.links.front() - first.links.front();
  shape.shifted_alike = true;
  for (std::size_t k = 0; k < shape.links.size() && shape.shifted_alike; ++k)
    shape.shifted_alike = shape.links[k] - first.links[k] == shape.link_shift;
  return shape;
}

const HostRoutes::HostShape& HostRoutes::shape_of_last(VertexId host) {
  // Consecutive calls mostly stay in one host (a rail's ranks through a node): its shape is
  // looked up once for them, not through two tables missing the cache at each call.
  if (host != last_host_) {
    shape_of(host);
    last_host_ = host;
    last_slot_ = host_slot_[host];
  }
  return hosts_[last_slot_];
}

HostRoutes::Placement HostRoutes::placement(VertexId from, VertexId to) {
  const VertexId host = graph_.vertex(from).host;
  if (host == no_vertex || host != graph_.vertex(to).host) return {};
  const HostShape& shape = shape_of_last(host);
  return {template_key(shape, from, to), shape.link_shift, shape.shifted_alike};
}

const Route* HostRoutes::between(VertexId from, VertexId to) {
  const VertexId host = graph_.vertex(from).host;
  if (host == no_vertex || host != graph_.vertex(to).host) {
    last_template_ = no_template;
    std::optional<Route> route = find_route(graph_, from, to);
    if (!route) return nullptr;
    route_ = std::move(*route);
    return &route_;
  }
  const HostShape& shape = shape_of_last(host);
  const std::uint64_t key = template_key(shape, from, to);
  last_template_ = key;
  auto [it, inserted] = templates_.try_emplace(key);
  if (inserted) {
    ++searches_;
    if (const std::optional<Route> route = find_route(graph_, from, to)) {
      std::unordered_map<LinkId, std::uint32_t> position_of_link;
      for (std::uint32_t p = 0; p < shape.links.size(); ++p) position_of_link.emplace(shape.links[p], p);
      RouteTemplate& found = it->second.emplace();
      for (const LinkUse& use : route->uses) found.uses.emplace_back(position_of_link.at(use.link), use);
      found.hop_count = route->hop_count;
      found.latency_us = route->latency_us;
      found.bottleneck_gbps = route->bottleneck_gbps;
    }
  }
  if (!it->second) return nullptr;
  route_.hop_count = it->second->hop_count;
  route_.latency_us = it->second->latency_us;
  route_.bottleneck_gbps = it->second->bottleneck_gbps;
  route_.uses.clear();
  for (const auto& [position, use] : it->second->uses)
    route_.uses.push_back({shape.links[position], use.from_a, use.fraction});
  return &route_;
}

}  // namespace fb::topo
