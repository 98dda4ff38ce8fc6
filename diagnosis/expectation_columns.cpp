#include "diagnosis/expectation_columns.hpp"

#include <fmt/format.h>

namespace fb::diagnosis {

void ExpectationColumns::add(ResultRow& row, const Provenance& provenance) {
  if (row.expected_busbw_gbps || row.expected_time_us) return;
  const topo::NcclTuningChoice tuning = topo::nccl_tuning_for(topo::nccl_version_recorded(provenance.libraries));
  const topo::Expectation expectation =
      model_.expect(row, provenance.rank_hosts, topo::forced_by_environment(provenance.environment), *tuning.tuning,
                    provenance.gpus_per_process.value_or(1));
  if (!expectation.problem.empty() && reported_.insert(expectation.problem).second)
    warnings_ << fmt::format("fabricbench: warning: {}\n", expectation.problem);
  const auto note_once = [&](const std::string& assumption) {
    const std::string note = fmt::format("run {}: assumed: {}", row.run_id, assumption);
    if (reported_.insert(note).second) warnings_ << fmt::format("fabricbench: warning: {}\n", note);
  };
  // Only a modelled collective's choice rests on NCCL's tuner, and only GPU ranks launch kernels.
  if (!expectation.choice.algorithm.empty()) {
    if (!tuning.assumption.empty()) note_once(tuning.assumption);
    if (!provenance.gpus_per_process && topo::rank_memory_of(row.backend) == topo::RankMemory::gpu)
      note_once("GPUs per process not recorded: one process (one launching thread) per GPU, as nccl-tests -g 1");
  }
  topo::set_expectation(row, expectation);
}

void ExpectationColumns::add(std::span<LoadedResults> sets) {
  for (LoadedResults& set : sets)
    for (ResultRow& row : set.results.rows) { add(row, set.results.provenance); }
}

}  // namespace fb::diagnosis
