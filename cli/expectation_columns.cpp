#include "cli/expectation_columns.hpp"

#include <fmt/format.h>

namespace fb::cli {

void ExpectationColumns::add(ResultRow& row, std::span<const std::string> rank_hosts,
                             const std::map<std::string, std::string>& environment) {
  if (row.expected_busbw_gbps || row.expected_time_us) return;
  const topo::Expectation expectation = model_.expect(row, rank_hosts, topo::forced_by_environment(environment));
  if (!expectation.problem.empty() && reported_.insert(expectation.problem).second)
    warnings_ << fmt::format("fabricbench: warning: {}\n", expectation.problem);
  topo::set_expectation(row, expectation);
}

void ExpectationColumns::add(std::vector<LoadedResults>& sets) {
  for (LoadedResults& set : sets)
    for (ResultRow& row : set.results.rows) {
      add(row, set.results.provenance.rank_hosts, set.results.provenance.environment);
    }
}

}  // namespace fb::cli
