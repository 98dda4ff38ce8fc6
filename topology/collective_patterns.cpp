// The traffic patterns the fabric layer solves: trees, alltoall pairs, other jobs.

#include "topology/collective_patterns.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>

namespace fb::topo::detail {

int in_order_parent(int r, int n) {
  int bit = r & -r;
  for (;;) {
    const int parent = (r & (2 * bit)) != 0 ? r - bit : r + bit;
    if (parent < n) return parent;
    if (2 * bit >= n) return 0;
    r = parent;
    bit *= 2;
  }
}

Flows::Solution solve_local_ring(FlowPaths& paths, std::span<const VertexId> local) {
  Flows flows(paths);
  for (std::size_t k = 0; k < local.size(); ++k) flows.add({flows.local_path(local[k], local[(k + 1) % local.size()])});
  return flows.solve();
}

namespace {

// Node r of the first tree as the second tree places it: mirrored (even counts) or shifted (odd).
int second_tree_rank(int tree, int r, int nodes) {
  if (tree == 0) return r;
  return nodes % 2 == 0 ? nodes - 1 - r : (r + 1) % nodes;
}

}  // namespace

Flows::Solution solve_local_all_pairs(FlowPaths& paths, std::span<const VertexId> local) {
  Flows flows(paths);
  for (const VertexId from : local) {
    for (const VertexId to : local) {
      if (from != to) flows.add({flows.local_path(from, to)});
    }
  }
  return flows.solve();
}

Flows::Solution solve_trees(FlowPaths& paths, const std::vector<std::vector<RailCrossing>>& crossings, int nodes,
                            std::span<const CompetingJob> competing) {
  Flows trees(paths);
  for (int tree = 0; tree < 2; ++tree) {
    for (int node = 1; node < nodes; ++node) {
      const int child = second_tree_rank(tree, node, nodes);
      const int parent = second_tree_rank(tree, in_order_parent(node, nodes), nodes);
      for (const auto& rail : crossings) {
        const RailCrossing& c = rail[static_cast<std::size_t>(child)];
        const RailCrossing& p = rail[static_cast<std::size_t>(parent)];
        trees.add_fabric_hop(c.entry, c.entry, c.nic, p.nic, p.entry);
        trees.add_fabric_hop(p.entry, p.entry, p.nic, c.nic, c.entry);
      }
    }
  }
  trees.add_competing(competing);
  return trees.solve();
}

double alltoall_pair_weight(const Graph& graph, std::span<const VertexId> hosts, std::size_t peers) {
  std::size_t nics = std::numeric_limits<std::size_t>::max();
  for (const VertexId host : hosts) nics = std::min(nics, nics_of(graph, host).size());
  return static_cast<double>(std::max<std::size_t>(nics, 1)) / static_cast<double>(peers);
}

Flows::Solution solve_alltoall(FlowPaths& paths, std::span<const VertexId> hosts, std::size_t peers, double weight,
                               std::span<const CompetingJob> competing) {
  Flows pairs(paths);
  std::vector<std::uint32_t> fabric_hosts;
  for (const VertexId host : hosts) fabric_hosts.push_back(paths.host_index(host));
  pairs.reserve(hosts.size() * peers, 2 * hosts.size() * peers);  // a way up and a way down each
  for_each_alltoall_pair(hosts.size(), peers, [&](std::size_t from, std::size_t to) {
    pairs.add_host_pair(fabric_hosts[from], fabric_hosts[to], weight);
  });
  pairs.add_competing(competing);
  return pairs.solve();
}

void require_hosts_of_their_own(const Graph& graph, std::span<const SharingJob> jobs,
                                const std::vector<std::vector<VertexId>>& own_ranks) {
  std::set<VertexId> own_hosts;
  for (const auto& local : own_ranks) own_hosts.insert(graph.vertex(local.front()).host);
  for (const SharingJob& job : jobs) {
    for (const VertexId rank : job.ranks) {
      const VertexId host = graph.vertex(rank).host;
      if (own_hosts.contains(host)) {
        throw InputError(fmt::format("{} has ranks on {}, a host of the predicted job: jobs never share a host",
                                     job.name, graph.vertex(host).name));
      }
    }
  }
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): places each competing job and routes its flows, naming the job in each refusal
std::vector<CompetingJob> plan_competing(const Graph& graph, HostRoutes& host_routes, HostHops& host_hops,
                                         std::span<const SharingJob> jobs, NearestNics& nearest_nics,
                                         std::vector<std::string>& lines) {
  std::vector<CompetingJob> planned;
  for (const SharingJob& job : jobs) {
    CompetingJob& competing = planned.emplace_back();
    competing.name = job.name;
    const std::vector<std::vector<VertexId>> local_ranks = ranks_by_host(graph, job.ranks);
    std::string sampled;
    if (local_ranks.size() > 1) {
      switch (job.pattern) {
        case SharingPattern::rings: {
          std::vector<RailPlanner> planners;
          for (const auto& rail : plan_rails(graph, host_routes, host_hops, local_ranks, planners)) {
            for (std::size_t node = 0; node < rail.size(); ++node) {
              const RailCrossing& out = rail[node];
              const RailCrossing& in = rail[(node + 1) % rail.size()];
              competing.hops.push_back({out.exit, out.via, out.nic, in.nic, in.entry});
            }
          }
          break;
        }
        case SharingPattern::all_pairs: {
          std::vector<VertexId> hosts;
          for (const auto& local : local_ranks) hosts.push_back(graph.vertex(local.front()).host);
          const std::size_t peers = std::min<std::size_t>(hosts.size() - 1, alltoall_sampled_peers);
          for_each_alltoall_pair(hosts.size(), peers, [&](std::size_t from, std::size_t to) {
            competing.host_pairs.emplace_back(hosts[from], hosts[to]);
          });
          competing.pair_weight = alltoall_pair_weight(graph, hosts, peers);
          if (peers < hosts.size() - 1)
            sampled = fmt::format(", each node's to {} evenly spaced peers standing for all", peers);
          break;
        }
        case SharingPattern::neighbours:
          for (std::size_t i = 0; i < job.ranks.size(); ++i) {
            const VertexId from = job.ranks[i];
            const VertexId to = job.ranks[(i + 1) % job.ranks.size()];
            if (graph.vertex(from).host != graph.vertex(to).host) {
              competing.hops.push_back({from, from, nearest_nics.of(from), nearest_nics.of(to), to});
            }
          }
          break;
      }
    }
    const std::size_t flows = competing.hops.size() + competing.host_pairs.size();
    lines.push_back(flows == 0 ? fmt::format("{}: one node, nothing on the fabric", job.name)
                               : fmt::format("{}: its {} over {} nodes ({} fabric flows{}) runs throughout", job.name,
                                             name_of(job.pattern), local_ranks.size(), flows, sampled));
  }
  return planned;
}

std::string solved_limit(const Flows::Solution& solution) {
  return solution.limit.empty() ? std::string("no shared link fills") : solution.limit;
}

}  // namespace fb::topo::detail
