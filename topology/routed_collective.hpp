#pragma once
// A collective's fabric traffic on the routes the subnet manager programmed. The collective model
// (collective_model.hpp) spreads every flow over equal-cost links, so a leaf's uplinks act as one
// pool and one slow cable of four costs little. An InfiniBand fabric routes each destination over
// one cable: the forwarding tables send a whole ring step over one uplink, and the ring runs at
// that cable's rate. Here each step's NIC-to-NIC flows are routed hop by hop (the tables' path,
// else the ECMP spread), each directed link's load is the number of the step's flows crossing it,
// and the step lasts as long as its slowest flow: the largest load / capacity on its path.

#include "common/op_catalog.hpp"
#include "topology/collective_model.hpp"
#include "topology/forwarding_tables.hpp"
#include "topology/graph.hpp"
#include "topology/routing.hpp"

#include <optional>
#include <span>
#include <vector>

namespace fb::topo {

struct NicFlow {
  VertexId src_nic = no_vertex;
  VertexId dst_nic = no_vertex;
};

// The NIC-to-NIC flows that run at once in a step of `algorithm` running `op` over the ranks
// (nodes in the order of their first rank), each carrying the same bytes: per rail (a node's NICs
// in ordinal order for GPU ranks, its first NIC for ranks in host memory, as MPI's transports
// pick), the ring's node-to-node hops (broadcast and reduce: the chain, without the hop back to
// the root), both trees' edges both ways (NCCL's double binary tree), every node pair (alltoall),
// the neighbours (sendrecv), every node to or from the first (gather, scatter). Ranks on one node
// exchange nothing across the fabric. Empty (no value) for NVLS, CollNet and PAT, whose traffic is
// not a pattern of flows between NICs this file routes.
std::optional<std::vector<NicFlow>> step_flows(const Graph& graph, std::span<const VertexId> ranks, const OpTraits& op,
                                               Algorithm algorithm);

// A step's flows on their routes, routed once: capacities are read when the step is timed, so
// the same routes time the healthy fabric and one with a link degraded.
class RoutedStep {
 public:
  // Throws fb::InputError naming a pair that has no route at all.
  RoutedStep(const Graph& graph, const TableRouter* tables, std::span<const NicFlow> flows);

  // Seconds per GB that each flow carries: the slowest flow's largest load / capacity_gbps on its
  // path, capacities from `graph` (the routed graph or a copy of it with links degraded). 0 when
  // the step crosses no link.
  double slowest_flow_s_per_gb(const Graph& graph) const;
  int flows_on_table_routes() const { return on_tables_; }
  int flows() const { return static_cast<int>(routes_.size()); }

 private:
  std::vector<std::vector<LinkUse>> routes_;
  std::vector<double> load_;  // per directed link (directed_link_index): flows crossing it
  int on_tables_ = 0;
};

}  // namespace fb::topo
