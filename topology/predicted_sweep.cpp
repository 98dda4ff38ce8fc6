// A predicted sweep: placement, model and one prediction per size (predicted_sweep.hpp).

#include "topology/predicted_sweep.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace fb::topo {

std::vector<SharingJob> sharing_jobs(const Graph& graph, const std::vector<OtherJob>& jobs,
                                     const std::vector<std::vector<VertexId>>& job_ranks) {
  std::vector<SharingJob> sharing;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const std::vector<VertexId>& ranks = job_ranks[j + 1];
    const auto host_of = [&](VertexId rank) { return graph.vertex(graph.vertex(rank).host).name; };
    std::size_t nodes = 0;  // place_jobs lists a host's ranks together
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      if (r == 0 || graph.vertex(ranks[r]).host != graph.vertex(ranks[r - 1]).host) ++nodes;
    }
    sharing.push_back(
        {fmt::format("job {} ({} on {} node{}, {}{})", j + 2, jobs[j].op->name, nodes, nodes == 1 ? "" : "s",
                     host_of(ranks.front()), nodes > 1 ? " ... " + host_of(ranks.back()) : std::string()),
         ranks, *sharing_pattern_of(*jobs[j].op)});
  }
  return sharing;
}

namespace {

// A model sweep's sizes, rounded down to whole floats per rank as nccl-tests rounds its counts
// (all_to_all_perf -b 1M on 72 ranks runs 1,048,320 bytes), so a design of any rank count takes
// the same sweep; a size under one float per rank is refused where nccl-tests would run empty calls.
std::vector<std::uint64_t> whole_element_sizes(const SweepSpec& spec, const OpTraits& op, int ranks,
                                               std::vector<std::string>& warnings) {
  const std::uint64_t unit = size_unit_bytes(op, 4, ranks);
  std::vector<std::uint64_t> sizes = expand_sweep(spec, 1, "bytes");
  if (sizes.front() < unit) {
    throw UsageError(fmt::format("{} of {} bytes is under one float per rank: {} on {} ranks moves at least {} bytes",
                                 op.name, sizes.front(), op.name, ranks, unit));
  }
  const auto first_rounded = std::find_if(sizes.begin(), sizes.end(), [&](std::uint64_t b) { return b % unit != 0; });
  if (first_rounded != sizes.end()) {
    warnings.push_back(fmt::format(
        "{} on {} ranks moves whole floats per rank: sizes rounded down to multiples of {} bytes, as nccl-tests "
        "rounds them ({} -> {} bytes)",
        op.name, ranks, unit, *first_rounded, *first_rounded / unit * unit));
  }
  for (std::uint64_t& bytes : sizes) bytes = bytes / unit * unit;
  return sizes;
}

}  // namespace

PredictedSweep predict_sweep(const Graph& graph, const SweepRequest& request) {
  const OpTraits& op = *request.op;
  validate_sweep(request.sweep);
  const NcclTuningChoice tuning = nccl_tuning_for(request.nccl_version);
  std::vector<JobPlacement> placements{request.placement};
  for (const OtherJob& job : request.other_jobs) placements.push_back(job.placement);
  const std::vector<std::vector<VertexId>> job_ranks = place_jobs(graph, placements);
  const std::vector<VertexId>& ranks = job_ranks.front();
  // Ranks per host, hosts in vertex order (a million ranks: counted in an array, not a map).
  // A rank without a host (no_vertex) is counted in the last slot, sorted last as no_vertex is.
  const auto slot = [&](VertexId host) { return std::min<std::size_t>(host, graph.vertex_count()); };
  std::vector<int> ranks_of_vertex(graph.vertex_count() + 1, 0);
  std::vector<VertexId> hosts;
  for (const VertexId gpu : ranks) {
    const VertexId host = graph.vertex(gpu).host;
    if (ranks_of_vertex[slot(host)]++ == 0) hosts.push_back(host);
  }
  std::sort(hosts.begin(), hosts.end());
  for (const VertexId host : hosts) {
    const int count = ranks_of_vertex[slot(host)];
    if (count % request.gpus_per_process != 0) {
      throw UsageError(fmt::format("--gpus-per-process {} must divide the GPUs per node: {} has {} ranks",
                                   request.gpus_per_process, graph.vertex(host).name, count));
    }
  }
  PredictedSweep sweep;
  sweep.tuning = tuning.tuning;
  // Only the figures this op reads: alltoall's pairs, the trees (all_reduce), the neighbours (sendrecv).
  sweep.model =
      model_collectives(graph, ranks,
                        ModelOptions{request.in_network_reduction, sharing_jobs(graph, request.other_jobs, job_ranks),
                                     request.gpus_per_process, op.modelled_as == ModelledCollective::alltoall,
                                     op.modelled_as == ModelledCollective::all_reduce,
                                     op.modelled_as == ModelledCollective::sendrecv});
  const CollectiveModel& model = sweep.model;
  std::vector<std::string>& warnings = sweep.warnings;
  const std::vector<std::uint64_t> sizes = whole_element_sizes(request.sweep, op, model.ranks, warnings);

  ResultSet& results = sweep.results;
  Provenance& provenance = results.provenance;
  provenance.run_id = request.run_id;
  provenance.start_time = request.start_time;
  provenance.command_line = request.command_line;
  provenance.assumptions = request.assumptions;
  for (const std::string& line : model.sharing) provenance.assumptions.push_back("sharing the fabric: " + line);
  provenance.backend = "model";
  provenance.nranks = model.ranks;
  provenance.nodes = model.nodes;
  provenance.ranks_per_node = model.ranks_per_node;
  for (const VertexId gpu : ranks) provenance.rank_hosts.push_back(graph.vertex(graph.vertex(gpu).host).name);
  for (const std::uint64_t bytes : sizes) {
    const Prediction prediction = predict(model, op, bytes, request.forced, *tuning.tuning);
    if (!prediction.warning.empty() &&
        std::find(warnings.begin(), warnings.end(), prediction.warning) == warnings.end()) {
      warnings.push_back(prediction.warning);
    }
    std::vector<std::string>& assumed = provenance.assumptions;
    if (!prediction.assumption.empty() &&
        std::find(assumed.begin(), assumed.end(), prediction.assumption) == assumed.end()) {
      assumed.push_back(prediction.assumption);
      warnings.push_back("assumed: " + prediction.assumption);
    }
    results.rows.push_back(predicted_row(model, prediction, op, bytes, provenance.run_id, provenance.start_time));
  }
  // The model's guesses are warnings: a prediction that rests on them says so.
  if (!tuning.assumption.empty()) {
    warnings.push_back("assumed: " + tuning.assumption);
    provenance.assumptions.push_back(tuning.assumption);
  }
  for (const std::string& assumption : model.assumptions) warnings.push_back("assumed: " + assumption);
  if (model.transport) {
    // The remote-peer cost counts where grouped sends reach other nodes' ranks.
    const bool remote_peers = op.modelled_as == ModelledCollective::alltoall ||
                              op.modelled_as == ModelledCollective::gather ||
                              op.modelled_as == ModelledCollective::scatter;
    const std::string transport = transport_assumption(*model.transport, remote_peers);
    if (!transport.empty()) warnings.push_back("assumed: " + transport);
  }
  if (op.modelled_as == ModelledCollective::alltoall && !model.alltoall_assumption.empty()) {
    warnings.push_back("assumed: " + model.alltoall_assumption);
  }
  return sweep;
}

}  // namespace fb::topo
