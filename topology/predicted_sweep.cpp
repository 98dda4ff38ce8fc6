// A predicted sweep: placement, model and one prediction per size (predicted_sweep.hpp).

#include "topology/predicted_sweep.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

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

PredictedSweep predict_sweep(const Graph& graph, const SweepRequest& request) {
  const OpTraits& op = *request.op;
  validate_sweep(request.sweep);
  const NcclTuningChoice tuning = nccl_tuning_for(request.nccl_version);
  std::vector<JobPlacement> placements{request.placement};
  for (const OtherJob& job : request.other_jobs) placements.push_back(job.placement);
  const std::vector<std::vector<VertexId>> job_ranks = place_jobs(graph, placements);
  const std::vector<VertexId>& ranks = job_ranks.front();
  std::map<VertexId, int> ranks_on_host;
  for (const VertexId gpu : ranks) ++ranks_on_host[graph.vertex(gpu).host];
  for (const auto& [host, count] : ranks_on_host) {
    if (count % request.gpus_per_process != 0) {
      throw UsageError(fmt::format("--gpus-per-process {} must divide the GPUs per node: {} has {} ranks",
                                   request.gpus_per_process, graph.vertex(host).name, count));
    }
  }
  PredictedSweep sweep;
  sweep.tuning = tuning.tuning;
  sweep.model =
      model_collectives(graph, ranks,
                        ModelOptions{request.in_network_reduction, sharing_jobs(graph, request.other_jobs, job_ranks),
                                     request.gpus_per_process});
  const CollectiveModel& model = sweep.model;
  const std::vector<std::uint64_t> sizes =
      expand_sweep(request.sweep, size_unit_bytes(op, 4, model.ranks), "float elements");

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
  std::vector<std::string>& warnings = sweep.warnings;
  for (const std::uint64_t bytes : sizes) {
    const Prediction prediction = predict(model, op, bytes, request.forced, *tuning.tuning);
    if (!prediction.warning.empty() &&
        std::find(warnings.begin(), warnings.end(), prediction.warning) == warnings.end()) {
      warnings.push_back(prediction.warning);
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
