#pragma once
// A predicted sweep: one job's collective over a range of sizes on a topology, with other jobs on
// the fabric, as results rows (backend "model") and the model and warnings that explain them.
// `topo predict` and `topo compare` ask for one per design and op.

#include "topology/collective_model.hpp"
#include "topology/graph.hpp"
#include "topology/nccl_tuning.hpp"

#include "common/op_catalog.hpp"
#include "common/sizes.hpp"
#include "results/results_io.hpp"

#include <optional>
#include <string>
#include <vector>

namespace fb::topo {

// Another job on the fabric: its op's dominant pattern, on hosts of its own.
struct OtherJob {
  const OpTraits* op = nullptr;
  JobPlacement placement;
};

struct SweepRequest {
  const OpTraits* op = nullptr;  // one the model predicts (modelled_op)
  Forced forced;
  std::optional<NcclVersion> nccl_version;  // none: the newest figures, stated as an assumption
  SweepSpec sweep;
  JobPlacement placement;  // the predicted job
  std::vector<OtherJob> other_jobs;
  bool in_network_reduction = false;
  int gpus_per_process = 1;
  // Provenance: the run id, the command line and the start time (ISO 8601 UTC) the rows carry.
  std::string run_id;
  std::string command_line;
  std::string start_time;
  std::vector<std::string> assumptions;  // what the caller assumed, recorded in the provenance
};

struct PredictedSweep {
  CollectiveModel model;
  const NcclTuning* tuning = nullptr;
  ResultSet results;
  // What a reader must know: setups no one runs, and every assumption ("assumed: ...").
  std::vector<std::string> warnings;
};

// Places the jobs, models the placement and predicts every size of the sweep. Throws InputError
// when the topology cannot hold the placement or the forcing cannot run, UsageError when the
// GPUs per process do not divide a node's ranks or the sweep is malformed.
PredictedSweep predict_sweep(const Graph& graph, const SweepRequest& request);

// The other jobs as the model names them: "job 2 (alltoall on 64 nodes, node065 ... node128)".
std::vector<SharingJob> sharing_jobs(const Graph& graph, const std::vector<OtherJob>& jobs,
                                     const std::vector<std::vector<VertexId>>& job_ranks);

}  // namespace fb::topo
