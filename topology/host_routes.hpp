#pragma once
// Routes inside hosts, searched once per shape of host. A cluster is built of a few kinds of
// node, cabled alike: hosts with the same devices in the same order, linked alike, route alike,
// so a route found in one host is translated to the others by position instead of searched again.
// At 100,000 GPUs this turns a million route searches into a few hundred.

#include "topology/graph.hpp"
#include "topology/routing.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

namespace fb::topo {

class HostRoutes {
 public:
  explicit HostRoutes(const Graph& graph);

  // find_route(graph, from, to) for two vertices of one host (searched directly otherwise), or
  // null when there is none. The route is valid until the next call: a million calls allocate
  // nothing.
  const Route* between(VertexId from, VertexId to);

  // The host shape and the two ends' positions of the last route between() gave inside a host
  // (routes with equal keys are one route moved to another host), or no_template when it was
  // searched directly (ends in two hosts or none).
  static constexpr std::uint64_t no_template = ~std::uint64_t{0};
  std::uint64_t last_template() const { return last_template_; }

  // Where two vertices of one host sit, for a caller that keeps routes by template: the key
  // last_template() would give for their route, and whether the host's inside links are those of
  // the first host of its shape, each moved by `link_shift` (hosts built one after the other).
  // Routes with equal keys in two such hosts are the same links moved by the difference of their
  // shifts, without a route being translated.
  struct Placement {
    std::uint64_t key = no_template;
    std::uint32_t link_shift = 0;
    bool shifted_alike = false;
  };
  Placement placement(VertexId from, VertexId to);

  // Searches done, and hosts of a shape seen before (their routes were translated).
  std::size_t searches() const { return searches_; }

  // For a vertex of a host: the host's shape and the vertex's position in it (the host 0, its
  // devices from 1). Equal pairs sit alike in hosts built alike: what holds for one holds for the
  // other.
  std::uint32_t shape(VertexId v) { return shape_of(graph_.vertex(v).host).shape; }
  std::uint32_t position(VertexId v) {
    shape_of(graph_.vertex(v).host);
    return position_of_vertex_[v];
  }

 private:
  struct HostShape {
    std::uint32_t shape = 0;
    std::vector<VertexId> vertices;  // the host, then its devices: position -> vertex
    std::vector<LinkId> links;       // links inside the host, in the order its vertices list them
    std::uint32_t link_shift = 0;    // links[k] - links[k] of the shape's first host, for every k
    bool shifted_alike = false;      // ... when that difference is the same for every k
  };
  // A route in positions: the link's position in HostShape::links, direction and fraction.
  struct RouteTemplate {
    std::vector<std::pair<std::uint32_t, LinkUse>> uses;
    int hop_count = 0;
    double latency_us = 0;
    double bottleneck_gbps = 0;
  };

  const HostShape& shape_of(VertexId host);
  // shape_of, remembered for the host asked last (last_host_, last_slot_).
  const HostShape& shape_of_last(VertexId host);
  // Shapes number in the hundreds and hosts' vertices in the tens: 20 bits each is ample.
  std::uint64_t template_key(const HostShape& shape, VertexId from, VertexId to) const {
    return std::uint64_t{shape.shape} << 40 | std::uint64_t{position_of_vertex_[from]} << 20 | position_of_vertex_[to];
  }

  const Graph& graph_;
  std::vector<std::uint32_t> host_slot_;  // host vertex -> index into hosts_, for hosts seen so far
  std::vector<HostShape> hosts_;
  std::map<std::vector<std::uint64_t>, std::uint32_t> shape_ids_;
  std::vector<std::uint32_t> first_host_of_shape_;  // by shape: its first host's slot in hosts_
  std::vector<std::uint32_t> position_of_vertex_;   // within its host, for hosts seen so far
  std::unordered_map<std::uint64_t, std::optional<RouteTemplate>> templates_;
  std::size_t searches_ = 0;
  Route route_;
  std::uint64_t last_template_ = no_template;
  VertexId last_host_ = no_vertex;  // the host shape_of_last() was asked for last, and its slot
  std::uint32_t last_slot_ = 0;
};

}  // namespace fb::topo
