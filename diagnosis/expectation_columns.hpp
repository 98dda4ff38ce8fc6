#pragma once
// The topology model's expectation written into results rows by the commands that take a topology
// (run, diagnose, report, fit). Why a row has none is said once per reason, not once per row.

#include "results/result_loading.hpp"
#include "results/provenance.hpp"
#include "results/result_row.hpp"
#include "topology/graph.hpp"
#include "topology/row_expectation.hpp"

#include <ostream>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace fb::diagnosis {

class ExpectationColumns {
 public:
  ExpectationColumns(const topo::Graph& graph, std::ostream& warnings) : model_(graph), warnings_(warnings) {}

  // Fills the row's expectation and efficiency unless it carries an expectation already, for the
  // ranks where the run's provenance placed them; its environment says what NCCL_ALGO/NCCL_PROTO
  // forced, its libraries which NCCL's tuner chose (the newest figures, said once, when they do
  // not record it), its GPUs per process how many kernels one thread launches per call (one, said
  // once for GPU collectives, when it does not record it).
  void add(ResultRow& row, const Provenance& provenance);
  // Every row of every set, each with its own run's placement.
  void add(std::span<LoadedResults> sets);

  topo::ExpectationModel& model() { return model_; }

 private:
  topo::ExpectationModel model_;
  std::ostream& warnings_;
  std::set<std::string> reported_;
};

}  // namespace fb::diagnosis
