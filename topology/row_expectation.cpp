#include "topology/row_expectation.hpp"

#include "common/errors.hpp"
#include "topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace fb::topo {
namespace {

// How many ranks before `rank` share its host: its index among the host's ranks.
int local_index_of(int rank, std::span<const std::string> rank_hosts) {
  const auto& host = rank_hosts[static_cast<std::size_t>(rank)];
  return static_cast<int>(std::count(rank_hosts.begin(), rank_hosts.begin() + rank, host));
}

std::vector<VertexId> devices_of_kind(const Graph& graph, VertexId host, VertexKind kind) {
  std::vector<VertexId> devices;
  for (const VertexId device : graph.devices_of(host))
    if (graph.vertex(device).kind == kind) devices.push_back(device);
  std::sort(devices.begin(), devices.end(),
            [&](VertexId a, VertexId b) { return graph.vertex(a).index < graph.vertex(b).index; });
  return devices;
}

PairPath path_of(const Graph& graph, const Route& route) {
  PairPath path{route.latency_us, route.bottleneck_gbps, "", ""};
  double narrowest = std::numeric_limits<double>::infinity();
  double narrowest_decided = std::numeric_limits<double>::infinity();
  for (const LinkUse& use : route.uses) {
    const Link& link = graph.link(use.link);
    const double share_gbps = link.spec.capacity_gbps / use.fraction;
    const std::string* undecided = graph.undecided(use.link);
    if (undecided == nullptr) narrowest_decided = std::min(narrowest_decided, share_gbps);
    if (share_gbps < narrowest) {
      narrowest = share_gbps;
      path.bottleneck = std::string(link.spec.technology);
      path.undecided = undecided == nullptr ? std::string() : *undecided;
    }
  }
  // A decided link as narrow holds the flow whichever candidate the undecided one is.
  if (narrowest_decided <= narrowest) path.undecided.clear();
  return path;
}

// An expectation that would rest on a capacity the input left open.
std::string withheld(const std::string& undecided) {
  return fmt::format("expectation withheld (n/a): it depends on a link the input does not decide: {}", undecided);
}

// Legs in sequence: latencies add up, the narrowest leg limits the flow.
void append_leg(PairPath& path, const PairPath& leg) {
  path.alpha_us += leg.alpha_us;
  if (leg.bandwidth_gbps < path.bandwidth_gbps) {
    path.bandwidth_gbps = leg.bandwidth_gbps;
    path.bottleneck = leg.bottleneck;
    path.undecided = leg.undecided;
  } else if (leg.bandwidth_gbps == path.bandwidth_gbps && leg.undecided.empty()) {
    path.undecided.clear();
  }
}

// Ranks that share a host talk over its links (NVLink, PCIe): a collective's expectation rests on
// them, so one whose capacity is undecided withholds it. Ranks alone on their hosts do not.
std::string undecided_within_hosts(const Graph& graph, std::span<const VertexId> endpoints) {
  std::map<VertexId, int> ranks_per_host;
  for (const VertexId v : endpoints) ++ranks_per_host[graph.vertex(v).host];
  for (const auto& [host, ranks] : ranks_per_host) {
    if (ranks < 2 || host == no_vertex) continue;
    for (const VertexId device : graph.devices_of(host)) {
      for (const LinkId l : graph.links_of(device)) {
        if (const std::string* why = graph.undecided(l)) return *why;
      }
    }
  }
  return {};
}

std::string shared_vertex_problem(const Graph& graph, VertexId shared) {
  return fmt::format("ranks sharing a {} have no link between them in the topology: no expectation for their rows",
                     name_of(graph.vertex(shared).kind));
}

}  // namespace

std::optional<RankMemory> rank_memory_of(std::string_view backend) {
  if (backend == "mpi" || backend == "osu") return RankMemory::host;
  if (backend == "nccl" || backend == "cuda" || backend == "nccl-tests") return RankMemory::gpu;
  return std::nullopt;
}

ExpectationModel::Endpoint ExpectationModel::endpoint(const std::string& host_name, int local_index,
                                                      RankMemory memory) const {
  const VertexId host = graph_.find(host_name);
  if (host == no_vertex || graph_.vertex(host).kind != VertexKind::host)
    return {no_vertex, fmt::format("host {} is not in the topology: no expectation for its rows", host_name)};
  if (memory == RankMemory::gpu) {
    const std::vector<VertexId> gpus = devices_of_kind(graph_, host, VertexKind::gpu);
    if (local_index < static_cast<int>(gpus.size())) return {gpus[static_cast<std::size_t>(local_index)], ""};
    return {no_vertex,
            fmt::format("host {} has {} GPUs in the topology, fewer than its ranks", host_name, gpus.size())};
  }
  const std::vector<VertexId> cpus = devices_of_kind(graph_, host, VertexKind::cpu);
  if (!cpus.empty()) return {cpus[static_cast<std::size_t>(local_index) % cpus.size()], ""};
  if (const std::optional<VertexId> nic = first_nic_of_host(graph_, host_name)) return {*nic, ""};
  return {no_vertex, fmt::format("host {} has neither a CPU nor a NIC in the topology", host_name)};
}

ExpectationModel::Endpoint ExpectationModel::rank_endpoint(std::optional<int> rank, const std::string& host_name,
                                                           int fallback_local_index, RankMemory memory,
                                                           std::span<const std::string> rank_hosts) const {
  if (rank && *rank >= 0 && static_cast<std::size_t>(*rank) < rank_hosts.size() &&
      rank_hosts[static_cast<std::size_t>(*rank)] == host_name)
    return endpoint(host_name, local_index_of(*rank, rank_hosts), memory);
  return endpoint(host_name, fallback_local_index, memory);
}

PairPathResult ExpectationModel::path_between(VertexId src, VertexId dst) {
  const auto [cached, inserted] = paths_.try_emplace({src, dst});
  if (!inserted) return cached->second;
  PairPathResult& result = cached->second;
  if (src == dst) {
    result.problem = shared_vertex_problem(graph_, src);
    return result;
  }
  const auto route_leg = [&](VertexId from, VertexId to) -> std::optional<PairPath> {
    if (from == to) return PairPath{0, std::numeric_limits<double>::infinity(), "", ""};
    const std::optional<Route> route = find_route(graph_, from, to);
    if (!route) {
      result.problem =
          fmt::format("the topology has no route from {} to {}", graph_.vertex(from).name, graph_.vertex(to).name);
      return std::nullopt;
    }
    return path_of(graph_, *route);
  };
  const auto nic_of = [&](VertexId v) -> std::optional<VertexId> {
    if (graph_.vertex(v).kind == VertexKind::nic) return v;
    const std::optional<VertexId> nic = nearest_nic(graph_, v);
    if (!nic) result.problem = fmt::format("{} has no NIC in the topology to reach other hosts", graph_.vertex(v).name);
    return nic;
  };

  if (graph_.vertex(src).host == graph_.vertex(dst).host) {
    if (const std::optional<PairPath> path = route_leg(src, dst)) result.path = *path;
    return result;
  }
  const std::optional<VertexId> src_nic = nic_of(src);
  const std::optional<VertexId> dst_nic = src_nic ? nic_of(dst) : std::nullopt;
  if (!dst_nic) return result;
  PairPath path{0, std::numeric_limits<double>::infinity(), "", ""};
  for (const auto& [from, to] : {std::pair{src, *src_nic}, std::pair{*src_nic, *dst_nic}, std::pair{*dst_nic, dst}}) {
    const std::optional<PairPath> leg = route_leg(from, to);
    if (!leg) return result;
    append_leg(path, *leg);
  }
  result.path = path;
  return result;
}

PairPathResult ExpectationModel::pair_path(const ResultRow& row, std::span<const std::string> rank_hosts) {
  const std::optional<RankMemory> memory = rank_memory_of(row.backend);
  const OpTraits* op = find_op(row.op);
  if (!memory || !op || !is_pair_op(*op) || row.src_host.empty() || row.dst_host.empty()) return {};
  // Without the run's placement, two ranks of one host are taken to be its first two.
  const Endpoint src = rank_endpoint(row.src_rank, row.src_host, 0, *memory, rank_hosts);
  if (!src.problem.empty()) return {std::nullopt, src.problem};
  const Endpoint dst =
      rank_endpoint(row.dst_rank, row.dst_host, row.src_host == row.dst_host ? 1 : 0, *memory, rank_hosts);
  if (!dst.problem.empty()) return {std::nullopt, dst.problem};
  return path_between(src.vertex, dst.vertex);
}

Expectation ExpectationModel::expect_collective(const ResultRow& row, const OpTraits& op, RankMemory memory,
                                                std::span<const std::string> rank_hosts, const Forced& forced,
                                                const NcclTuning& tuning, int gpus_per_process) {
  if (row.nranks < 2) return {};
  if (rank_hosts.size() < static_cast<std::size_t>(row.nranks))
    return {std::nullopt, std::nullopt,
            fmt::format("run {} does not record the host of each of its {} ranks: no expectation for its collectives",
                        row.run_id, row.nranks)};
  std::vector<VertexId> endpoints;
  for (int rank = 0; rank < row.nranks; ++rank) {
    const Endpoint e = endpoint(rank_hosts[static_cast<std::size_t>(rank)], local_index_of(rank, rank_hosts), memory);
    if (!e.problem.empty()) return {std::nullopt, std::nullopt, e.problem};
    endpoints.push_back(e.vertex);
  }
  std::set<VertexId> distinct;
  for (const VertexId v : endpoints)
    if (!distinct.insert(v).second) return {std::nullopt, std::nullopt, shared_vertex_problem(graph_, v)};

  auto [cached, inserted] = models_.try_emplace(std::pair{endpoints, gpus_per_process}, std::string());
  if (inserted) {
    ModelOptions options;
    options.gpus_per_process = gpus_per_process;
    const std::string undecided =
        graph_.undecided_link_count() == 0 ? std::string() : undecided_within_hosts(graph_, endpoints);
    try {
      if (undecided.empty()) {
        cached->second = model_collectives(graph_, endpoints, options);
      } else {
        cached->second = withheld(undecided);
      }
    } catch (const InputError& refused) {
      cached->second = fmt::format("the collective model cannot place run {}: {}", row.run_id, refused.what());
    }
  }
  if (const auto* problem = std::get_if<std::string>(&cached->second)) return {std::nullopt, std::nullopt, *problem};
  const CollectiveModel& model = std::get<CollectiveModel>(cached->second);
  Prediction prediction;
  try {
    prediction = predict(model, op, row.bytes, model.gpu_ranks ? forced : Forced{}, tuning);
  } catch (const InputError& refused) {
    return {std::nullopt, std::nullopt, fmt::format("run {}: {}", row.run_id, refused.what())};
  }
  const ResultRow predicted = predicted_row(model, prediction, op, row.bytes, "", "");
  return {predicted.busbw_gbps.value_or(predicted.algbw_gbps), std::nullopt, "",
          ModelChoice{predicted.model_algorithm, predicted.model_protocol, predicted.model_channels,
                      predicted.model_limit}};
}

Forced forced_by_environment(const std::map<std::string, std::string>& environment) {
  Forced forced;
  if (const auto algo = environment.find("NCCL_ALGO"); algo != environment.end()) {
    forced.algorithm = algorithm_from_string(algo->second);
  }
  if (const auto proto = environment.find("NCCL_PROTO"); proto != environment.end()) {
    forced.protocol = protocol_from_string(proto->second);
  }
  return forced;
}

std::optional<NcclVersion> nccl_version_recorded(const std::map<std::string, std::string>& libraries) {
  for (const char* key : {"nccl", "nccl-library"}) {
    if (const auto found = libraries.find(key); found != libraries.end()) return parse_nccl_version(found->second);
  }
  return std::nullopt;
}

Expectation ExpectationModel::expect(const ResultRow& row, std::span<const std::string> rank_hosts,
                                     const Forced& forced, const NcclTuning& tuning, int gpus_per_process) {
  const std::optional<RankMemory> memory = rank_memory_of(row.backend);
  if (!memory) return {};
  const OpTraits* op = find_op(row.op);
  if (!op) return {};
  if (op->modelled_as != ModelledCollective::none)
    return expect_collective(row, *op, *memory, rank_hosts, forced, tuning, gpus_per_process);
  if (!is_pair_op(*op)) return {};

  const PairPathResult there = pair_path(row, rank_hosts);
  if (!there.path) return {std::nullopt, std::nullopt, there.problem};
  const PairPath& path = *there.path;
  if (!path.undecided.empty()) return {std::nullopt, std::nullopt, withheld(path.undecided)};
  if (reports_latency(*op))
    return {std::nullopt, path.alpha_us + static_cast<double>(row.bytes) / (path.bandwidth_gbps * 1e3), ""};
  if (!primitive_of(*op).bidirectional) return {path.bandwidth_gbps, std::nullopt, ""};
  // Both directions at once, each on its own route.
  ResultRow reverse = row;
  std::swap(reverse.src_rank, reverse.dst_rank);
  std::swap(reverse.src_host, reverse.dst_host);
  const PairPathResult back = pair_path(reverse, rank_hosts);
  if (!back.path) return {std::nullopt, std::nullopt, back.problem};
  if (!back.path->undecided.empty()) return {std::nullopt, std::nullopt, withheld(back.path->undecided)};
  return {path.bandwidth_gbps + back.path->bandwidth_gbps, std::nullopt, ""};
}

void set_expectation(ResultRow& row, const Expectation& expectation) {
  row.expected_busbw_gbps = expectation.busbw_gbps;
  row.expected_time_us = expectation.time_us;
  row.efficiency_pct.reset();
  row.model_algorithm = expectation.choice.algorithm;
  row.model_protocol = expectation.choice.protocol;
  row.model_channels = expectation.choice.channels;
  row.model_limit = expectation.choice.limit;
  if (expectation.busbw_gbps && *expectation.busbw_gbps > 0)
    row.efficiency_pct = 100 * row.busbw_gbps.value_or(row.algbw_gbps) / *expectation.busbw_gbps;
  else if (expectation.time_us && row.time_median_us > 0)
    row.efficiency_pct = 100 * *expectation.time_us / row.time_median_us;
}

}  // namespace fb::topo
