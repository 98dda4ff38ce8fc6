#include "topology/collective_model.hpp"

#include "topology/fabric_hierarchy.hpp"
#include "topology/flow_model.hpp"
#include "topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace fb::topo {
namespace {

// Flow classes over two resource spaces: directed links [0, 2 * links) for paths inside hosts,
// then the fabric hierarchy's bundles.
class RingFlows {
 public:
  RingFlows(const Graph& graph, bool multi_node) : graph_(graph) {
    if (multi_node) fabric_.emplace(graph);
    const std::size_t link_resources = 2 * graph.link_count();
    capacity_gbps_.resize(link_resources + (fabric_ ? fabric_->resource_count() : 0));
    for (LinkId l = 0; l < graph.link_count(); ++l) {
      capacity_gbps_[2 * l] = capacity_gbps_[2 * l + 1] = graph.link(l).spec.capacity_gbps;
    }
    if (fabric_) {
      std::copy(fabric_->resource_capacity_gbps().begin(), fabric_->resource_capacity_gbps().end(),
                capacity_gbps_.begin() + static_cast<std::ptrdiff_t>(link_resources));
    }
  }

  // A hop between two GPUs of one host.
  double add_local_hop(VertexId from, VertexId to) {
    const LocalPath& path = local_path(from, to);
    classes_.push_back(FlowClass{{path.shares}, 1.0});
    return path.latency_us;
  }

  // A hop between GPUs of two hosts: GPU to its NIC, the fabric, NIC to GPU.
  double add_fabric_hop(VertexId from, VertexId to) {
    const VertexId from_nic = nic_of(from);
    const VertexId to_nic = nic_of(to);
    const std::uint32_t from_host = host_index(graph_.vertex(from).host);
    const std::uint32_t to_host = host_index(graph_.vertex(to).host);
    const std::optional<std::uint32_t> meeting = fabric_->common_group(from_host, to_host);
    if (!meeting) {
      throw std::invalid_argument(fmt::format("no fabric route from {} to {}",
                                              graph_.vertex(from).name, graph_.vertex(to).name));
    }
    const int level = fabric_->groups()[*meeting].level;
    const LocalPath& out = local_path(from, from_nic);
    const LocalPath& in = local_path(to_nic, to);
    classes_.push_back(FlowClass{{out.shares, fabric_shares(from_host, level, false),
                                  fabric_shares(to_host, level, true), in.shares},
                                 1.0});
    return out.latency_us + in.latency_us + fabric_->latency_to_level_us(from_host, level) +
           fabric_->latency_to_level_us(to_host, level);
  }

  double slowest_flow_rate_gbps() const {
    const MaxMinAllocation allocation = solve_max_min(capacity_gbps_, classes_);
    return *std::min_element(allocation.rate_gbps.begin(), allocation.rate_gbps.end());
  }

  std::size_t nic_count(VertexId host) const {
    return static_cast<std::size_t>(std::count_if(graph_.devices_of(host).begin(), graph_.devices_of(host).end(),
                                                  [&](VertexId v) { return graph_.vertex(v).kind == VertexKind::nic; }));
  }

 private:
  struct LocalPath {
    std::vector<ResourceShare> shares;
    double latency_us = 0;
  };

  const LocalPath& local_path(VertexId from, VertexId to) {
    const auto [it, inserted] = local_paths_.try_emplace({from, to});
    // A rank placed on a NIC (host memory on a host the topology knows only by its NIC) is
    // already where its fabric hop starts.
    if (inserted && from != to) {
      const std::optional<Route> route = find_route(graph_, from, to);
      if (!route) {
        throw std::invalid_argument(fmt::format("no route from {} to {}", graph_.vertex(from).name,
                                                graph_.vertex(to).name));
      }
      for (const LinkUse& use : route->uses) {
        it->second.shares.push_back({static_cast<std::uint32_t>(directed_link_index(use)), use.fraction});
      }
      it->second.latency_us = route->latency_us;
    }
    return it->second;
  }

  std::span<const ResourceShare> fabric_shares(std::uint32_t host, int level, bool downwards) {
    const auto [it, inserted] = fabric_paths_.try_emplace({host, level, downwards});
    if (inserted) {
      const auto offset = static_cast<std::uint32_t>(2 * graph_.link_count());
      for (const ResourceShare& use : fabric_->profile(fabric_->host_group(host), level, downwards)) {
        it->second.push_back({use.resource + offset, use.share});
      }
    }
    return it->second;
  }

  VertexId nic_of(VertexId gpu) {
    const auto [it, inserted] = nic_of_gpu_.try_emplace(gpu, no_vertex);
    if (inserted) {
      const std::optional<VertexId> nic = nearest_nic(graph_, gpu);
      if (!nic) throw std::invalid_argument(fmt::format("{} has no NIC to reach other nodes", graph_.vertex(gpu).name));
      it->second = *nic;
    }
    return it->second;
  }

  std::uint32_t host_index(VertexId host) const {
    const auto hosts = fabric_->hosts();
    const auto it = std::lower_bound(hosts.begin(), hosts.end(), host);
    if (it == hosts.end() || *it != host) {
      throw std::invalid_argument(fmt::format("host {} has no fabric link", graph_.vertex(host).name));
    }
    return static_cast<std::uint32_t>(it - hosts.begin());
  }

  const Graph& graph_;
  std::optional<FabricHierarchy> fabric_;
  std::vector<double> capacity_gbps_;
  std::vector<FlowClass> classes_;
  // std::map nodes do not move, so the spans the classes hold stay valid.
  std::map<std::pair<VertexId, VertexId>, LocalPath> local_paths_;
  std::map<std::tuple<std::uint32_t, int, bool>, std::vector<ResourceShare>> fabric_paths_;
  std::map<VertexId, VertexId> nic_of_gpu_;
};

int ceil_log2(int p) { return static_cast<int>(std::bit_width(static_cast<unsigned>(p - 1))); }

}  // namespace

std::string_view to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return "all_reduce";
    case CollectiveOp::all_gather: return "all_gather";
    case CollectiveOp::reduce_scatter: return "reduce_scatter";
  }
  return "unknown";
}

std::string_view to_string(CollectiveAlgorithm algorithm) {
  return algorithm == CollectiveAlgorithm::ring ? "ring" : "tree";
}

std::optional<CollectiveOp> collective_op_from_string(std::string_view name) {
  for (const CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter}) {
    if (name == to_string(op)) return op;
  }
  return std::nullopt;
}

std::optional<CollectiveAlgorithm> collective_algorithm_from_string(std::string_view name) {
  if (name == "ring") return CollectiveAlgorithm::ring;
  if (name == "tree") return CollectiveAlgorithm::tree;
  return std::nullopt;
}

std::vector<VertexId> place_ranks(const Graph& graph, int nodes, int gpus_per_node) {
  std::vector<VertexId> ranks;
  int placed_nodes = 0;
  for (VertexId host = 0; host < graph.vertex_count(); ++host) {
    if (graph.vertex(host).kind != VertexKind::host) continue;
    if (nodes > 0 && placed_nodes == nodes) break;
    std::vector<VertexId> gpus;
    for (const VertexId device : graph.devices_of(host)) {
      if (graph.vertex(device).kind == VertexKind::gpu) gpus.push_back(device);
    }
    std::sort(gpus.begin(), gpus.end(),
              [&](VertexId a, VertexId b) { return graph.vertex(a).index < graph.vertex(b).index; });
    if (gpus.empty()) continue;
    if (gpus_per_node > static_cast<int>(gpus.size())) {
      throw std::invalid_argument(fmt::format("host {} has {} GPUs, fewer than the {} per node asked for",
                                              graph.vertex(host).name, gpus.size(), gpus_per_node));
    }
    const std::size_t take = gpus_per_node > 0 ? static_cast<std::size_t>(gpus_per_node) : gpus.size();
    ranks.insert(ranks.end(), gpus.begin(), gpus.begin() + static_cast<std::ptrdiff_t>(take));
    ++placed_nodes;
  }
  if (nodes > 0 && placed_nodes < nodes) {
    throw std::invalid_argument(fmt::format("the topology has {} hosts with GPUs, fewer than the {} nodes asked for",
                                            placed_nodes, nodes));
  }
  return ranks;
}

RingModel model_rings(const Graph& graph, std::span<const VertexId> rank_gpus) {
  if (rank_gpus.size() < 2) {
    throw std::invalid_argument(fmt::format("a collective model needs at least 2 ranks, got {}", rank_gpus.size()));
  }
  // Ranks grouped by host, hosts in order of their first rank.
  std::vector<std::vector<VertexId>> local_ranks;
  std::map<VertexId, std::size_t> slot_of_host;
  for (const VertexId gpu : rank_gpus) {
    const auto [it, inserted] = slot_of_host.try_emplace(graph.vertex(gpu).host, local_ranks.size());
    if (inserted) local_ranks.emplace_back();
    local_ranks[it->second].push_back(gpu);
  }
  RingModel model;
  model.ranks = static_cast<int>(rank_gpus.size());
  model.nodes = static_cast<int>(local_ranks.size());
  for (const auto& local : local_ranks) model.ranks_per_node = std::max(model.ranks_per_node, static_cast<int>(local.size()));

  RingFlows flows(graph, model.nodes > 1);
  if (model.nodes > 1) {
    model.rings = std::numeric_limits<int>::max();
    for (const auto& local : local_ranks) {
      const std::size_t nics = flows.nic_count(graph.vertex(local.front()).host);
      model.rings = std::min(model.rings, static_cast<int>(std::min(nics, local.size())));
    }
    if (model.rings == 0) throw std::invalid_argument("a multi-node placement needs a NIC on every node");
  }
  // Ring r visits each node's ranks starting after local rank r and leaving from local rank r,
  // so that the rings leave every node through different GPUs and hence different NICs.
  for (int r = 0; r < model.rings; ++r) {
    for (std::size_t node = 0; node < local_ranks.size(); ++node) {
      const auto& local = local_ranks[node];
      const std::size_t size = local.size();
      for (std::size_t k = 0; k + 1 < size; ++k) {
        model.alpha_us = std::max(model.alpha_us, flows.add_local_hop(local[(r + 1 + k) % size], local[(r + 2 + k) % size]));
      }
      const auto& next = local_ranks[(node + 1) % local_ranks.size()];
      const VertexId exit = local[r % size];
      const VertexId entry = next[(r + 1) % next.size()];
      if (local_ranks.size() == 1) {
        if (exit != entry) model.alpha_us = std::max(model.alpha_us, flows.add_local_hop(exit, entry));
      } else {
        model.alpha_us = std::max(model.alpha_us, flows.add_fabric_hop(exit, entry));
      }
    }
  }
  model.step_bandwidth_gbps = model.rings * flows.slowest_flow_rate_gbps();
  return model;
}

double bus_bandwidth_factor(CollectiveOp op, int ranks) {
  const double p = ranks;
  return op == CollectiveOp::all_reduce ? 2 * (p - 1) / p : (p - 1) / p;
}

double predicted_time_us(const RingModel& model, CollectiveOp op, CollectiveAlgorithm algorithm, std::uint64_t bytes) {
  const int p = model.ranks;
  const double steps = algorithm == CollectiveAlgorithm::ring ? p - 1 : ceil_log2(p);
  const double latency_rounds = op == CollectiveOp::all_reduce ? 2 * steps : steps;
  // GB/s is 1e3 bytes per microsecond.
  const double transfer_us = static_cast<double>(bytes) / (model.step_bandwidth_gbps * 1e3);
  return latency_rounds * model.alpha_us + bus_bandwidth_factor(op, p) * transfer_us;
}

ResultRow predicted_row(const RingModel& model, CollectiveOp op, CollectiveAlgorithm algorithm,
                        std::uint64_t bytes, std::string run_id, std::string timestamp) {
  constexpr std::uint64_t float_bytes = 4;
  const double time_us = predicted_time_us(model, op, algorithm, bytes);
  ResultRow row;
  row.run_id = std::move(run_id);
  row.backend = "model";
  row.op = std::string(to_string(op));
  row.dtype = "float";
  row.redop = op == CollectiveOp::all_gather ? "none" : "sum";
  row.nranks = model.ranks;
  row.nodes = model.nodes;
  row.ranks_per_node = model.ranks_per_node;
  row.bytes = bytes;
  // nccl-tests prints the per-rank element count: the whole buffer for all_reduce, a rank's
  // share for all_gather and reduce_scatter.
  row.count = op == CollectiveOp::all_reduce ? bytes / float_bytes
                                             : bytes / float_bytes / static_cast<std::uint64_t>(model.ranks);
  row.time_min_us = row.time_median_us = row.time_p99_us = row.time_max_us = time_us;
  row.algbw_gbps = static_cast<double>(bytes) / (time_us * 1e3);
  row.busbw_gbps = row.algbw_gbps * bus_bandwidth_factor(op, model.ranks);
  row.timestamp = std::move(timestamp);
  return row;
}

}  // namespace fb::topo
