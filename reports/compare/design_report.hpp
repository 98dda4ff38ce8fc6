#pragma once
// Designs side by side (topo compare) rendered: the answer first, then per op a table of every
// design's predicted busbw, time, ratio and limiting link; as console text, CSV, JSON and one
// self-contained HTML page with a gnuplot plot per op.

#include "topology/design_comparison.hpp"

#include <ostream>
#include <string>

namespace fb {

void print_design_comparison(std::ostream& out, const topo::DesignComparison& comparison);

// One row per op, size and design: op, bytes, design, time_us, busbw_gbps, ratio_to_best,
// algorithm, protocol, limit, limit_words, cost_per_gbps (empty when not priced).
std::string design_comparison_csv(const topo::DesignComparison& comparison);

// {"answer": [...], "designs": [{name, parts, cost}], "points": [...], "warnings": [...]}.
std::string design_comparison_json(const topo::DesignComparison& comparison);

// A self-contained page (no script, no external loads): the answer, a busbw-vs-size plot per op
// with a line per design, the tables and the model's assumptions. Throws when gnuplot fails.
std::string design_comparison_html(const topo::DesignComparison& comparison);

}  // namespace fb
