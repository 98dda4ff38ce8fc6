#include "diagnosis/topology_diagnosis.hpp"

#include "diagnosis/incident_diagnosis.hpp"
#include "diagnosis/intermittent_diagnosis.hpp"
#include "diagnosis/port_diagnosis.hpp"

#include <algorithm>

namespace fb::diagnosis {

namespace {

// A part the whole-run diagnosis already names: its intermittent finding would say it twice.
bool named_by(const std::vector<Finding>& findings, const Finding& intermittent) {
  return std::any_of(findings.begin(), findings.end(), [&](const Finding& finding) {
    return (intermittent.link && finding.link == intermittent.link) ||
           (!finding.link && !intermittent.host.empty() && finding.host == intermittent.host);
  });
}

}  // namespace

Diagnosis diagnose_against_topology(const topo::Graph& graph, std::span<const LoadedResults> sets,
                                    const topo::TableRouter* tables) {
  const std::vector<ResultRow> rows = all_rows(sets);
  Diagnosis diagnosis = diagnose(graph, rows, {}, tables);
  const auto add = [&](std::vector<Finding> findings) {
    for (Finding& finding : findings) diagnosis.findings.push_back(std::move(finding));
  };
  add(diagnose_incidents(graph, all_incidents(sets)));
  IntermittentDiagnosis intermittent = diagnose_intermittent(graph, rows, {}, tables);
  std::erase_if(intermittent.findings, [&](const Finding& f) { return named_by(diagnosis.findings, f); });
  add(std::move(intermittent.findings));
  // A soak run's slow pair is explained when its own repetition's diagnosis explains it (or finds
  // it not slow against that repetition's scale).
  std::erase_if(diagnosis.unexplained_slow_pairs, [&](const SlowPair& pair) {
    const bool explained = intermittent.soak_runs.contains(pair.run_id) &&
                           !intermittent.unexplained.contains(
                               {pair.run_id, pair.repetition.value_or(0), pair.round, pair.src_host, pair.dst_host});
    diagnosis.slow_flows_explained += explained ? 1 : 0;
    return explained;
  });
  // Port counters belong to the run that read them: their findings cite that run's pairs.
  bool counters_read = false;
  for (const LoadedResults& set : sets) {
    add(diagnose_port_counters(graph, set.results.port_counters, set.results.rows));
    counters_read = counters_read || !set.results.port_counters.empty();
  }
  if (!counters_read && diagnosis.flows_examined > 0)
    diagnosis.blind_spots.emplace_back("no port error counters were read with these results (run --port-counters): "
                                       "a cable that loses packets without losing much bandwidth was not looked for");
  return diagnosis;
}

}  // namespace fb::diagnosis
