#pragma once
// How rings cross nodes (collective_model.hpp describes the model): a node's NICs, hops inside a
// host, the NIC a rank's own traffic leaves through, and each rail's entry and exit GPUs per node.
// Internal to the collective model.

#include "topology/graph.hpp"
#include "topology/host_routes.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace fb::topo::detail {

// A host's NICs in ordinal order.
std::vector<VertexId> nics_of(const Graph& graph, VertexId host);

// Hops from a vertex to every vertex of its host, crossing only switches, CPUs and NICs (a GPU
// relays nothing), as routes inside a host go. Searched once per shape of host and position of
// the source (hosts built alike count alike), into a table by position in the host; shared by
// the rail planners and the nearest-NIC rule.
class HostHops {
 public:
  HostHops(const Graph& graph, HostRoutes& host_routes)
      : graph_(graph), host_routes_(host_routes), table_of_(graph.vertex_count(), no_table) {}

  // None when `to` is not reached from `from` (or sits in another host).
  std::optional<int> between(VertexId from, VertexId to);

 private:
  static constexpr std::uint32_t no_table = std::numeric_limits<std::uint32_t>::max();
  static constexpr int unreached = -1;

  std::uint32_t table(VertexId source);

  const Graph& graph_;
  HostRoutes& host_routes_;
  std::vector<std::uint32_t> table_of_;                              // source vertex -> index into tables_
  std::unordered_map<std::uint64_t, std::uint32_t> table_of_shape_;  // (shape, position) -> index
  std::vector<std::vector<int>> tables_;
};

// The NIC a rank's own point-to-point traffic leaves through: the fewest hops away, ranks sharing
// a switch with several NICs taking them in ordinal order (routing's nearest_nic rule); a rank
// placed on a NIC is its own.
class NearestNics {
 public:
  NearestNics(const Graph& graph, HostHops& host_hops) : graph_(graph), host_hops_(host_hops) {}

  VertexId of(VertexId rank);

 private:
  const Graph& graph_;
  HostHops& host_hops_;
  std::unordered_map<VertexId, std::vector<VertexId>> nics_by_host_;
};

// How one rail crosses a node: data arrives through the NIC at `entry`, visits the node's other
// ranks and leaves from `exit`, which sends through `via` (itself, or the entry GPU over NVLink
// when no second rank sits as near the NIC: PXN).
struct RailCrossing {
  VertexId nic = no_vertex;
  VertexId entry = no_vertex;
  VertexId exit = no_vertex;
  VertexId via = no_vertex;
};

class RailPlanner {
 public:
  RailPlanner(const Graph& graph, HostHops& host_hops, std::span<const VertexId> local)
      : graph_(graph), host_hops_(host_hops), local_(local.begin(), local.end()) {}

  RailCrossing plan(VertexId nic);

  // entry, the other ranks in rank order, exit: into `order` (refilled: a million of them at a
  // million GPUs, allocated once).
  void order(const RailCrossing& crossing, std::vector<VertexId>& order) const;

 private:
  const Graph& graph_;
  HostHops& host_hops_;
  std::vector<VertexId> local_;
  std::map<VertexId, int> entry_uses_;
  std::map<VertexId, int> exit_uses_;
};

// Ranks grouped by host, hosts in order of their first rank.
std::vector<std::vector<VertexId>> ranks_by_host(const Graph& graph, std::span<const VertexId> ranks);

// Every rail's crossing of every node, [rail][node]: one rail per NIC of the node with fewest.
std::vector<std::vector<RailCrossing>> plan_rails(const Graph& graph, HostRoutes& host_routes, HostHops& host_hops,
                                                  const std::vector<std::vector<VertexId>>& local_ranks,
                                                  std::vector<RailPlanner>& planners);

}  // namespace fb::topo::detail
