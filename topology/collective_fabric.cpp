// The fabric layer: what a placement of ranks can carry, as max-min fair flows over every link
// (collective_model.hpp describes both layers).

#include "topology/collective_model.hpp"

#include "common/errors.hpp"
#include "topology/collective_flows.hpp"
#include "topology/collective_patterns.hpp"
#include "topology/collective_rails.hpp"
#include "topology/fabric_hierarchy.hpp"
#include "topology/host_routes.hpp"
#include "topology/link_technology.hpp"
#include "topology/network_transport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <vector>

namespace fb::topo {

using detail::alltoall_pair_weight;
using detail::alltoall_sampled_peers;
using detail::CompetingJob;
using detail::Flows;
using detail::FlowPaths;
using detail::HostHops;
using detail::NearestNics;
using detail::nics_of;
using detail::plan_competing;
using detail::plan_rails;
using detail::RailCrossing;
using detail::RailPlanner;
using detail::ranks_by_host;
using detail::require_hosts_of_their_own;
using detail::solve_alltoall;
using detail::solve_local_all_pairs;
using detail::solve_local_ring;
using detail::solve_trees;
using detail::solved_limit;

namespace {

// How NCCL crosses the network: the transport of the NICs the rails leave through. Nodes whose
// NICs differ cross at the pace of the costliest, and the assumptions say so.
Transport network_transport(const Graph& graph, const std::vector<std::vector<RailCrossing>>& crossings,
                            std::vector<std::string>& assumptions) {
  // Each NIC's transport (its first link that has one), read node by node where a node's NICs
  // and their links sit side by side in memory, then weighed rail by rail as before.
  const std::size_t nodes = crossings.empty() ? 0 : crossings.front().size();
  std::vector<std::optional<Transport>> transports(crossings.size() * nodes);
  for (std::size_t node = 0; node < nodes; ++node) {
    for (std::size_t rail = 0; rail < crossings.size(); ++rail) {
      for (const LinkId l : graph.links_of(crossings[rail][node].nic)) {
        transports[rail * nodes + node] = transport_of(graph.link(l).spec);
        if (transports[rail * nodes + node]) break;
      }
    }
  }
  std::optional<Transport> chosen;
  bool mixed = false;
  for (const std::optional<Transport>& transport : transports) {
    if (!transport) continue;
    const auto cost = [](Transport t) { return figures_of(t).message_us + figures_of(t).remote_peer_us; };
    mixed = mixed || (chosen && *chosen != *transport);
    if (!chosen || cost(*transport) > cost(*chosen)) chosen = transport;
  }
  if (mixed) assumptions.push_back("the nodes' NICs use different transports: the costliest one's figures are used");
  return chosen.value_or(Transport::ib_verbs);
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): the model's steps in the order they depend on each other (ranks per host, rings, trees, NVLS, limits), each a call; what is left is the wiring between them
CollectiveModel model_collectives(const Graph& graph, std::span<const VertexId> rank_vertices,
                                  const ModelOptions& options) {
  if (rank_vertices.size() < 2) {
    throw InputError(fmt::format("a collective model needs at least 2 ranks, got {}", rank_vertices.size()));
  }
  const std::vector<std::vector<VertexId>> local_ranks = ranks_by_host(graph, rank_vertices);
  CollectiveModel model;
  model.ranks = static_cast<int>(rank_vertices.size());
  model.nodes = static_cast<int>(local_ranks.size());
  model.in_network_reduction = options.in_network_reduction && model.nodes > 1;
  if (options.gpus_per_process < 1) {
    throw InputError(fmt::format("a process drives at least 1 GPU, got {} GPUs per process", options.gpus_per_process));
  }
  model.gpus_per_process = options.gpus_per_process;
  for (const auto& local : local_ranks) {
    model.ranks_per_node = std::max(model.ranks_per_node, static_cast<int>(local.size()));
    if (local.size() % static_cast<std::size_t>(model.gpus_per_process) != 0) {
      throw InputError(fmt::format("{} GPUs per process do not divide the {} ranks on {}", model.gpus_per_process,
                                   local.size(), graph.vertex(graph.vertex(local.front()).host).name));
    }
  }
  model.gpu_ranks = std::all_of(rank_vertices.begin(), rank_vertices.end(),
                                [&](VertexId v) { return graph.vertex(v).kind == VertexKind::gpu; });

  // GPU generation and NVLink reach from the ranks' NVLinks.
  model.nvlink_intra = model.gpu_ranks && model.ranks_per_node > 1;
  model.nvswitch = model.gpu_ranks;
  model.gpu_nvlink_gbps = std::numeric_limits<double>::max();
  int nvlink_lanes = std::numeric_limits<int>::max();
  for (const VertexId rank : rank_vertices) {
    double nvlink_gbps = 0;
    int lanes = 0;
    bool to_switch = false;
    for (const LinkId l : graph.links_of(rank)) {
      const Link& link = graph.link(l);
      // The model is NCCL's (its algorithms, protocols and tuning per NVLink generation); RCCL
      // over xGMI would be predicted with NCCL's figures, so it is refused rather than guessed.
      if (link.spec.type == LinkType::xgmi) {
        throw InputError(fmt::format("{} is joined to its peers by xGMI: the collective model covers NCCL over NVLink, "
                                     "not RCCL over xGMI",
                                     graph.vertex(rank).name));
      }
      if (link.spec.type != LinkType::nvlink) continue;
      nvlink_gbps += link.spec.capacity_gbps;
      lanes += link.spec.lane_count;
      to_switch = to_switch || graph.vertex(link.other_end(rank)).kind == VertexKind::nvswitch;
      if (const auto cc = compute_capability_of(link.spec.technology)) model.compute_capability = *cc;
    }
    model.gpu_nvlink_gbps = std::min(model.gpu_nvlink_gbps, nvlink_gbps);
    nvlink_lanes = std::min(nvlink_lanes, lanes);
    model.nvswitch = model.nvswitch && to_switch;
    if (nvlink_gbps == 0) model.nvlink_intra = false;
  }
  if (model.gpu_ranks && model.compute_capability == 0) {
    model.compute_capability = 80;
    model.assumptions.push_back("the GPUs have no NVLink that names their generation: NCCL's Ampere (sm_80) "
                                "tuning figures assumed");
  }

  std::optional<FabricHierarchy> fabric;
  if (model.nodes > 1) fabric.emplace(graph);
  HostRoutes host_routes(graph);
  HostHops host_hops(graph, host_routes);
  NearestNics nearest_nics(graph, host_hops);
  FlowPaths paths(graph, fabric, host_routes);
  // A job on one node meets the other jobs on no link: they have hosts of their own.
  require_hosts_of_their_own(graph, options.sharing_jobs, local_ranks);
  std::vector<CompetingJob> competing;
  if (model.nodes > 1) {
    competing = plan_competing(graph, host_routes, host_hops, options.sharing_jobs, nearest_nics, model.sharing);
  } else {
    for (const SharingJob& job : options.sharing_jobs) {
      model.sharing.push_back(fmt::format("{}: shares no link with a job on one node", job.name));
    }
  }

  // Every rail's crossing of every node, planned once for the ring and the network alone.
  std::vector<std::vector<RailCrossing>> crossings;  // [rail][node]
  // The ring's flows and which of them are its fabric hops, kept until the network alone (the same
  // hops without the ring's paths inside the nodes) has copied them.
  std::optional<Flows> ring;
  std::vector<std::size_t> ring_hops;
  if (model.nodes > 1) {
    std::vector<RailPlanner> planners;
    crossings = plan_rails(graph, host_routes, host_hops, local_ranks, planners);
    model.rails = static_cast<int>(crossings.size());
    // A rail-optimized fabric: traffic between rails takes NCCL's default path through PXN.
    bool rails_on_several_switches = false;
    for (std::size_t node = 0; node < local_ranks.size() && !rails_on_several_switches; ++node) {
      for (const auto& rail : crossings) {
        rails_on_several_switches = rails_on_several_switches || paths.access_switch(rail[node].nic) !=
                                                                     paths.access_switch(crossings.front()[node].nic);
      }
    }
    if (rails_on_several_switches) {
      model.assumptions.push_back(
          "a node's NICs sit on several leaves (rail-optimized): traffic between rails goes through PXN "
          "(NCCL_P2P_PXN_LEVEL=2, NCCL's default), over NVLink to the GPU on the receiver's rail and out on that "
          "rail, not from one rail's leaf to another's through the spines");
    }
    model.transport = network_transport(graph, crossings, model.assumptions);
    // The ring: all rails at once, each through the node's ranks from its entry to its exit.
    Flows& flows = ring.emplace(paths);
    std::vector<VertexId> order;  // one rail's way through one node, refilled for each
    for (const auto& rail : crossings) {
      for (std::size_t node = 0; node < rail.size(); ++node) {
        planners[node].order(rail[node], order);
        for (std::size_t k = 0; k + 1 < order.size(); ++k) flows.add({flows.local_path(order[k], order[k + 1])});
        const RailCrossing& out = rail[node];
        const RailCrossing& in = rail[(node + 1) % rail.size()];
        ring_hops.push_back(flows.size());
        model.net_latency_us =
            std::max(model.net_latency_us, flows.add_fabric_hop(out.exit, out.via, out.nic, in.nic, in.entry));
      }
    }
    flows.add_competing(competing);
    const Flows::Solution solution = flows.solve();
    model.ring_gbps = model.rails * solution.slowest_gbps;
    model.ring_limit = solved_limit(solution);
  } else {
    const Flows::Solution solution = solve_local_ring(paths, local_ranks.front());
    model.ring_gbps = solution.slowest_gbps;
    model.ring_limit = solved_limit(solution);
  }

  if (!options.alltoall) {
    model.local_all_pairs_gbps = model.alltoall_node_gbps = std::numeric_limits<double>::quiet_NaN();
  }
  // alltoall's shares inside a node: every pair of the fullest node's ranks at once.
  if (model.ranks_per_node > 1 && options.alltoall) {
    const auto& local = *std::max_element(local_ranks.begin(), local_ranks.end(),
                                          [](const auto& a, const auto& b) { return a.size() < b.size(); });
    const Flows::Solution solution = solve_local_all_pairs(paths, local);
    model.local_all_pairs_gbps = solution.slowest_gbps;
    model.local_all_pairs_limit = solved_limit(solution);
  }

  // One node's ring alone: the intra-node stage of trees, NVLS-tree and CollNet.
  if (model.nodes > 1 && model.ranks_per_node > 1) {
    const auto& local = *std::max_element(local_ranks.begin(), local_ranks.end(),
                                          [](const auto& a, const auto& b) { return a.size() < b.size(); });
    const Flows::Solution solution = solve_local_ring(paths, local);
    model.intra_gbps = solution.slowest_gbps;
    model.intra_limit = solved_limit(solution);
  } else if (model.nodes == 1) {
    model.intra_gbps = model.ring_gbps;
    model.intra_limit = model.ring_limit;
  } else {
    model.intra_gbps = std::numeric_limits<double>::infinity();
  }

  // The network alone: every rail's crossing, GPU to GPU, at once.
  if (model.nodes > 1) {
    Flows flows(paths);
    flows.reserve(ring_hops.size(), 0);
    for (const std::size_t hop : ring_hops) flows.add_copy(*ring, hop);
    ring.reset();
    ring_hops = {};
    flows.add_competing(competing);
    const Flows::Solution solution = flows.solve();
    model.net_gbps = model.rails * solution.slowest_gbps;
    model.net_limit = solved_limit(solution);

    if (options.trees) {
      const Flows::Solution tree_solution = solve_trees(paths, crossings, model.nodes, competing);
      // Each flow moves S / (2 rails): busbw = 2(p-1)/p x S / T = 4 (p-1)/p x rails x rate.
      const double p = model.ranks;
      model.tree_net_gbps = 4 * (p - 1) / p * model.rails * tree_solution.slowest_gbps;
      model.tree_limit = solved_limit(tree_solution);
    } else {
      model.tree_net_gbps = std::numeric_limits<double>::quiet_NaN();
    }

    // Each rank's own path to its nearest NIC, alone (alltoall pushes every GPU's remote share
    // through it).
    model.gpu_nic_gbps = std::numeric_limits<double>::max();
    for (const VertexId rank : rank_vertices) {
      const VertexId nic = nearest_nics.of(rank);
      if (nic != rank)
        model.gpu_nic_gbps = std::min(model.gpu_nic_gbps, host_routes.between(rank, nic)->bottleneck_gbps);
    }

    if (options.alltoall) {
      // alltoall; beyond a few hundred nodes, flows to evenly spaced peers stand for all (the
      // fabric's groups share them alike).
      std::vector<VertexId> hosts;
      for (const auto& local : local_ranks) hosts.push_back(graph.vertex(local.front()).host);
      const std::size_t peers = std::min<std::size_t>(hosts.size() - 1, alltoall_sampled_peers);
      if (peers < hosts.size() - 1) {
        model.alltoall_assumption = fmt::format("alltoall: each node's flows to {} evenly spaced peers stand for its "
                                                "flows to all {}",
                                                peers, hosts.size() - 1);
      }
      const double weight = alltoall_pair_weight(graph, hosts, peers);
      const Flows::Solution pair_solution = solve_alltoall(paths, hosts, peers, weight, competing);
      model.alltoall_node_gbps = pair_solution.slowest_gbps * weight * static_cast<double>(peers);
      model.alltoall_limit = solved_limit(pair_solution);
    }
  }

  // sendrecv: rank i to rank i + 1; between nodes the receiver's nearest NIC takes it in. PXN
  // (NCCL_P2P_PXN_LEVEL=2, the default): over NVLink the sender hands its data to the local rank
  // nearest its own NIC of the receiver's rail (the same ordinal), so that a rail-optimized fabric
  // keeps it on one rail; otherwise it leaves through its own nearest NIC.
  if (!options.sendrecv) {
    model.sendrecv_gbps = std::numeric_limits<double>::quiet_NaN();
  } else {
    Flows flows(paths);
    std::map<VertexId, std::size_t> slot_of_host;
    for (std::size_t n = 0; n < local_ranks.size(); ++n)
      slot_of_host.emplace(graph.vertex(local_ranks[n].front()).host, n);
    for (std::size_t i = 0; i < rank_vertices.size(); ++i) {
      const VertexId from = rank_vertices[i];
      const VertexId to = rank_vertices[(i + 1) % rank_vertices.size()];
      const VertexId from_host = graph.vertex(from).host;
      if (from_host == graph.vertex(to).host) {
        flows.add({flows.local_path(from, to)});
        continue;
      }
      const VertexId to_nic = nearest_nics.of(to);
      VertexId via = from;
      VertexId from_nic = nearest_nics.of(from);
      if (model.nvlink_intra) {
        const std::vector<VertexId> far_nics = nics_of(graph, graph.vertex(to).host);
        const std::vector<VertexId> own_nics = nics_of(graph, from_host);
        const auto rail =
            static_cast<std::size_t>(std::find(far_nics.begin(), far_nics.end(), to_nic) - far_nics.begin());
        for (const VertexId proxy : local_ranks[slot_of_host.at(from_host)]) {
          if (rail < own_nics.size() && own_nics[rail] != from_nic && nearest_nics.of(proxy) == own_nics[rail]) {
            via = proxy;
            from_nic = own_nics[rail];
            break;
          }
        }
      }
      flows.add_fabric_hop(from, via, from_nic, to_nic, to);
    }
    flows.add_competing(competing);
    const Flows::Solution solution = flows.solve();
    model.sendrecv_gbps = solution.slowest_gbps;
    model.sendrecv_limit = solved_limit(solution);
  }

  if (model.nodes > 1) {
    model.channels = std::min(32, 2 * model.rails);
  } else if (model.nvlink_intra) {
    model.channels = std::clamp(2 * nvlink_lanes, 2, 32);
  } else {
    model.channels = 2;
  }
  return model;
}

}  // namespace fb::topo
