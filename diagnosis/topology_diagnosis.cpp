#include "diagnosis/topology_diagnosis.hpp"

#include "diagnosis/incident_diagnosis.hpp"
#include "diagnosis/intermittent_diagnosis.hpp"
#include "diagnosis/port_diagnosis.hpp"

namespace fb::diagnosis {

Diagnosis diagnose_against_topology(const topo::Graph& graph, std::span<const LoadedResults> sets,
                                    const topo::TableRouter* tables) {
  const std::vector<ResultRow> rows = all_rows(sets);
  Diagnosis diagnosis = diagnose(graph, rows, {}, tables);
  const auto add = [&](std::vector<Finding> findings) {
    for (Finding& finding : findings) diagnosis.findings.push_back(std::move(finding));
  };
  add(diagnose_incidents(graph, all_incidents(sets)));
  add(diagnose_intermittent(rows));
  // Port counters belong to the run that read them: their findings cite that run's pairs.
  for (const LoadedResults& set : sets) add(diagnose_port_counters(graph, set.results.port_counters, set.results.rows));
  return diagnosis;
}

}  // namespace fb::diagnosis
