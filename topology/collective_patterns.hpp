#pragma once
// The traffic patterns the fabric layer solves (collective_model.hpp describes the model): one node's
// ring, NCCL's double binary tree over the nodes, alltoall's host pairs, and other jobs' flows.
// Internal to the collective model.

#include "topology/collective_flows.hpp"
#include "topology/collective_model.hpp"
#include "topology/collective_rails.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace fb::topo::detail {

// alltoall beyond this many peers per node: evenly spaced peers stand for all of them.
constexpr std::size_t alltoall_sampled_peers = 127;
// The parent of node r (1 <= r < n) in an in-order binary tree over 0..n-1 rooted under node 0:
// r's lowest set bit b; the parent is r + b or r - b, whichever has bit 2b clear, climbing while
// it falls outside.
int in_order_parent(int r, int n);

// One node's ranks in a ring, alone.
Flows::Solution solve_local_ring(FlowPaths& paths, std::span<const VertexId> local);

// NCCL's double binary tree (src/graph/trees.cc, ncclGetDtree): tree 1 in order over the nodes;
// tree 2 its mirror image for an even node count and tree 1 shifted by one node for an odd count,
// so that the nodes interior in one tree are leaves in the other (a mirror of an odd count keeps
// the same nodes interior in both: their ports carry twice the edges, and 5 nodes ran slower than
// 6). Every edge carries half the data up (reduce) and down (broadcast) at once, on every rail.
Flows::Solution solve_trees(FlowPaths& paths, const std::vector<std::vector<RailCrossing>>& crossings, int nodes,
                            std::span<const CompetingJob> competing);

// One node's ranks all sending to each other at once (alltoall's shares inside a node), each
// ordered pair a flow: a link between the node's halves (a CPU socket link) carries every pair that
// crosses it, where a ring crosses it once each way.
Flows::Solution solve_local_all_pairs(FlowPaths& paths, std::span<const VertexId> local);

// The flows one host pair counts as where they meet other traffic. NCCL's p2p schedule sends to
// one peer at a time per channel, so a node's alltoall holds about as many connections open at
// once as a ring holds rails: a node's pairs together weigh its NIC count, as a ring node's rail
// flows do, and neither job's share of a link depends on how many peers the alltoall has.
double alltoall_pair_weight(const Graph& graph, std::span<const VertexId> hosts, std::size_t peers);

// alltoall: every host pair's flow spread over both nodes' NICs.
Flows::Solution solve_alltoall(FlowPaths& paths, std::span<const VertexId> hosts, std::size_t peers, double weight,
                               std::span<const CompetingJob> competing);

// The model knows no traffic inside a host but its own job's.
void require_hosts_of_their_own(const Graph& graph, std::span<const SharingJob> jobs,
                                const std::vector<std::vector<VertexId>>& own_ranks);

// The other jobs' fabric flows in the pattern each offers, and a line per job saying so.
std::vector<CompetingJob> plan_competing(const Graph& graph, HostRoutes& host_routes, HostHops& host_hops,
                                         std::span<const SharingJob> jobs, NearestNics& nearest_nics,
                                         std::vector<std::string>& lines);

std::string solved_limit(const Flows::Solution& solution);

// alltoall's host pairs: every node to `peers` others (all of them, or evenly spaced ones
// standing for all), as pair(from, to) with positions in a list of `hosts` hosts.
template <typename PairFn>
void for_each_alltoall_pair(std::size_t hosts, std::size_t peers, PairFn pair) {
  for (std::size_t from = 0; from < hosts; ++from) {
    for (std::size_t k = 1; k <= peers; ++k) {
      const std::size_t offset = peers == hosts - 1 ? k : 1 + (k - 1) * (hosts - 1) / peers;
      pair(from, (from + offset) % hosts);
    }
  }
}

}  // namespace fb::topo::detail
