#include "cli/expectation_columns.hpp"

#include <fmt/format.h>

namespace fb::cli {

void ExpectationColumns::add(ResultRow& row, std::span<const std::string> rank_hosts,
                             const std::map<std::string, std::string>& environment,
                             const std::map<std::string, std::string>& libraries) {
  if (row.expected_busbw_gbps || row.expected_time_us) return;
  const topo::NcclTuningChoice tuning = topo::nccl_tuning_for(topo::nccl_version_recorded(libraries));
  const topo::Expectation expectation =
      model_.expect(row, rank_hosts, topo::forced_by_environment(environment), *tuning.tuning);
  if (!expectation.problem.empty() && reported_.insert(expectation.problem).second)
    warnings_ << fmt::format("fabricbench: warning: {}\n", expectation.problem);
  // Only a modelled collective's choice rests on NCCL's tuner.
  if (!expectation.choice.algorithm.empty() && !tuning.assumption.empty()) {
    const std::string note = fmt::format("run {}: assumed: {}", row.run_id, tuning.assumption);
    if (reported_.insert(note).second) warnings_ << fmt::format("fabricbench: warning: {}\n", note);
  }
  topo::set_expectation(row, expectation);
}

void ExpectationColumns::add(std::vector<LoadedResults>& sets) {
  for (LoadedResults& set : sets)
    for (ResultRow& row : set.results.rows) {
      add(row, set.results.provenance.rank_hosts, set.results.provenance.environment, set.results.provenance.libraries);
    }
}

}  // namespace fb::cli
