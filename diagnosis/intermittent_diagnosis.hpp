#pragma once
// Diagnosis across the repetitions of a soak run (`run --repeat`, `--duration`): a part that is
// slow in some repetitions and not in others, the mark of a flapping link or a neighbour's load.
//
// Each repetition is judged on its own, against the model as diagnose() judges a run (its rounds'
// sharing included), and the findings are joined: the part that explains the slow pairs of the
// repetitions where they were slow is the finding, with those repetitions named. A pair that was
// slow only because it shared a round with the part is explained by it, and is no finding.

#include "diagnosis/diagnosis.hpp"
#include "results/result_row.hpp"
#include "topology/forwarding_tables.hpp"
#include "topology/graph.hpp"

#include <span>
#include <string>
#include <tuple>
#include <set>
#include <vector>

namespace fb::diagnosis {

// A measured pair of a soak run: run, repetition, round, source host, destination host.
using PairMeasurement = std::tuple<std::string, int, int, std::string, std::string>;

struct IntermittentDiagnosis {
  std::vector<Finding> findings;
  std::set<std::string> soak_runs;  // the runs judged repetition by repetition
  // Their slow pair measurements that no finding of their repetition explains.
  std::set<PairMeasurement> unexplained;
};

// Pair rows (is_pair_bandwidth_row) that carry a repetition, of runs with at least two
// repetitions. A part found (degraded_link, slow_node) in some repetitions of a run and not in all
// of them is one finding: intermittent_host for a host or its cable (host set, and link for the
// cable), intermittent_link for a cable between switches; the subject names the repetitions. Its
// confidence is the lowest of the repetitions' findings' confidences. A part found in every
// repetition is not intermittent (diagnose() over the whole run names it); slow pairs no
// repetition's finding explains stay unexplained (Diagnosis::unexplained_slow_pairs), not
// findings.
IntermittentDiagnosis diagnose_intermittent(const topo::Graph& graph, std::span<const ResultRow> rows,
                                            const DiagnosisSettings& settings = {},
                                            const topo::TableRouter* tables = nullptr);

}  // namespace fb::diagnosis
