// Where jobs run: hosts for each job's ranks, and the pattern another job offers the fabric
// (collective_model.hpp).

#include "topology/collective_model.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace fb::topo {

std::string_view name_of(SharingPattern pattern) {
  switch (pattern) {
    case SharingPattern::rings: return "ring rails";
    case SharingPattern::all_pairs: return "all-pairs exchange";
    case SharingPattern::neighbours: return "neighbour exchange";
  }
  return "unknown";
}

std::optional<SharingPattern> sharing_pattern_of(const OpTraits& op) {
  switch (op.modelled_as) {
    case ModelledCollective::alltoall: return SharingPattern::all_pairs;
    case ModelledCollective::sendrecv: return SharingPattern::neighbours;
    case ModelledCollective::gather:
    case ModelledCollective::scatter: return std::nullopt;
    case ModelledCollective::none:
    case ModelledCollective::all_reduce:
    case ModelledCollective::all_gather:
    case ModelledCollective::reduce_scatter:
    case ModelledCollective::broadcast:
    case ModelledCollective::reduce: break;
  }
  return SharingPattern::rings;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): places the jobs that name their hosts, then the sized jobs, then the rest; every refusal names its job and what it lacks
std::vector<std::vector<VertexId>> place_jobs(const Graph& graph, std::span<const JobPlacement> jobs) {
  const auto gpus_of = [&](VertexId host) {
    std::vector<VertexId> gpus;
    for (const VertexId device : graph.devices_of(host)) {
      if (graph.vertex(device).kind == VertexKind::gpu) gpus.push_back(device);
    }
    std::sort(gpus.begin(), gpus.end(),
              [&](VertexId a, VertexId b) { return graph.vertex(a).index < graph.vertex(b).index; });
    return gpus;
  };
  const auto whose = [&](std::size_t job) { return jobs.size() > 1 ? fmt::format(" job {}", job + 1) : std::string(); };
  const auto asked = [&](std::size_t job) {
    return jobs.size() > 1 ? whose(job) + " asks for" : std::string(" asked for");
  };
  std::vector<std::vector<VertexId>> job_hosts(jobs.size());
  std::map<VertexId, std::size_t> owner;  // host -> the job on it
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (jobs[j].placement.kind != Placement::Kind::hosts) continue;
    for (const std::string& name : jobs[j].placement.hosts) {
      const VertexId host = graph.find(name);
      if (host == no_vertex || graph.vertex(host).kind != VertexKind::host) {
        throw InputError(fmt::format("placement: host {} is not in the topology", name));
      }
      if (gpus_of(host).empty()) throw InputError(fmt::format("placement: host {} has no GPU", name));
      const auto [it, inserted] = owner.try_emplace(host, j);
      if (!inserted) {
        throw InputError(
            it->second == j
                ? fmt::format("placement: host {} is named twice{}", name, whose(j).empty() ? "" : " by" + whose(j))
                : fmt::format("placement: host {} is named by job {} and job {}: jobs never share a host", name,
                              it->second + 1, j + 1));
      }
      job_hosts[j].push_back(host);
    }
    if (jobs[j].nodes > 0 && jobs[j].nodes != static_cast<int>(job_hosts[j].size())) {
      throw InputError(
          fmt::format("placement{} names {} hosts, --nodes asks for {}", whose(j), job_hosts[j].size(), jobs[j].nodes));
    }
  }
  std::vector<VertexId> with_gpus;
  for (VertexId host = 0; host < graph.vertex_count(); ++host) {
    if (graph.vertex(host).kind == VertexKind::host && !gpus_of(host).empty()) with_gpus.push_back(host);
  }
  // Jobs of a stated size first, in order; jobs of 0 nodes take what they leave.
  for (const bool sized : {true, false}) {
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      if (jobs[j].placement.kind == Placement::Kind::hosts || (jobs[j].nodes > 0) != sized) continue;
      std::vector<VertexId> free;
      for (const VertexId host : with_gpus) {
        if (!owner.contains(host)) free.push_back(host);
      }
      const std::size_t wanted = sized ? static_cast<std::size_t>(jobs[j].nodes) : free.size();
      if (wanted == 0 && !owner.empty()) {
        throw InputError(
            fmt::format("the other jobs take all {} hosts with GPUs: none left for{}", with_gpus.size(), whose(j)));
      }
      if (wanted > free.size()) {
        throw InputError(owner.empty() ? fmt::format("the topology has {} hosts with GPUs, fewer than the {} nodes{}",
                                                     with_gpus.size(), wanted, asked(j))
                                       : fmt::format("the topology has {} hosts with GPUs, {} taken by other jobs: too "
                                                     "few for the {} nodes{}",
                                                     with_gpus.size(), owner.size(), wanted, asked(j)));
      }
      for (std::size_t k = 0; k < wanted; ++k) {
        const VertexId host = free[jobs[j].placement.kind == Placement::Kind::spread ? k * free.size() / wanted : k];
        owner.emplace(host, j);
        job_hosts[j].push_back(host);
      }
    }
  }
  std::vector<std::vector<VertexId>> job_ranks(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    for (const VertexId host : job_hosts[j]) {
      const std::vector<VertexId> gpus = gpus_of(host);
      if (jobs[j].gpus_per_node > static_cast<int>(gpus.size())) {
        throw InputError(fmt::format("host {} has {} GPUs, fewer than the {} per node{}", graph.vertex(host).name,
                                     gpus.size(), jobs[j].gpus_per_node, asked(j)));
      }
      const std::size_t take =
          jobs[j].gpus_per_node > 0 ? static_cast<std::size_t>(jobs[j].gpus_per_node) : gpus.size();
      job_ranks[j].insert(job_ranks[j].end(), gpus.begin(), gpus.begin() + static_cast<std::ptrdiff_t>(take));
    }
  }
  return job_ranks;
}

std::vector<VertexId> place_ranks(const Graph& graph, int nodes, int gpus_per_node, const Placement& placement) {
  const JobPlacement job{nodes, gpus_per_node, placement};
  return std::move(place_jobs(graph, std::span(&job, 1)).front());
}

}  // namespace fb::topo
