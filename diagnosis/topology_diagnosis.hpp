#pragma once
// What `diagnose --topology` prints and `report --topology` draws: one diagnosis of the loaded
// result sets against the model, so that the two commands name the same findings.

#include "diagnosis/diagnosis.hpp"
#include "results/result_loading.hpp"
#include "topology/graph.hpp"

#include <span>
#include <vector>

namespace fb::diagnosis {

// The slow pairs of every set together (diagnose calibrates over all of them), then the
// incidents, the pairs slow in some repetitions only, and each run's ports whose errors grew.
// With forwarding tables, pairs are routed over the path they give.
Diagnosis diagnose_against_topology(const topo::Graph& graph, std::span<const LoadedResults> sets,
                                    const topo::TableRouter* tables = nullptr);

}  // namespace fb::diagnosis
