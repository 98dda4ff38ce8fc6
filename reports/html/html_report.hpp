#pragma once
// The HTML report: one self-contained file (inline CSS and SVG, no JavaScript, no external
// resources) with the verdict and findings first, then plots per op, the pairwise heatmap, an
// optional comparison, and the provenance of every result set.

#include "diagnosis/acceptance.hpp"
#include "diagnosis/finding.hpp"
#include "diagnosis/verdict.hpp"
#include "results/result_loading.hpp"
#include "diagnosis/comparison.hpp"

#include <optional>
#include <string>
#include <vector>

namespace fb {

struct ReportComparison {
  std::string label_a;
  std::string label_b;
  diagnosis::Comparison comparison;
};

struct ReportInput {
  std::vector<LoadedResults> sets;
  std::optional<diagnosis::AcceptanceVerdict> acceptance;
  std::vector<diagnosis::Finding> model_findings;  // from other analyses (the topology model)
  std::optional<ReportComparison> comparison;
  std::optional<std::string> topology_dot;  // Graphviz DOT of the fabric, flagged links red
};

// The number of <svg> figures the report holds for `input`: two per op (bandwidth and time), those
// of bandwidth over time for soak runs (reports/html/soak_plots.hpp), one per
// compared op, one for the topology. Exposed so tests can check that every figure is rendered.
std::size_t expected_plot_count(const ReportInput& input);

// The verdict on what the report holds (diagnosis/verdict.hpp): the banner it opens with.
diagnosis::ReportVerdict verdict_of(const ReportInput& input);

// Throws std::runtime_error when gnuplot cannot draw a plot.
std::string render_html_report(const ReportInput& input);

}  // namespace fb
