#pragma once
// The HTML report: one self-contained file (inline CSS and SVG, no JavaScript, no external
// resources) with the verdict and findings first, then plots per op, the pairwise heatmap, an
// optional comparison, and the provenance of every result set.

#include "diagnosis/verdict.hpp"
#include "reports/html/gnuplot.hpp"
#include "results/result_loading.hpp"

#include <optional>
#include <string>
#include <vector>

namespace fb {

// What the report shows: the result sets and what diagnosis::judge_report made of them.
struct ReportInput {
  std::vector<LoadedResults> sets;
  diagnosis::ReportJudgement judged;
  std::string label_a;  // of the compared sets, when judged.comparison holds a comparison
  std::string label_b;
  std::optional<std::string> topology_dot;  // Graphviz DOT of the fabric, flagged links red
};

// "FAIL: 2 of 9 checks failed; 3 findings" / "PASS: 9 of 9 checks passed" / "NOT JUDGED: ...":
// the banner the report opens with and the line `report` prints.
std::string verdict_headline(const diagnosis::ReportVerdict& verdict);

// The number of <svg> figures the report holds for `input`: two per op (bandwidth and time), those
// of bandwidth over time for soak runs (reports/html/soak_plots.hpp), one per
// compared op, one for the topology. Exposed so tests can check that every figure is rendered.
std::size_t expected_plot_count(const ReportInput& input);

// Throws std::runtime_error when gnuplot cannot draw a plot.
std::string render_html_report(const ReportInput& input);

// The table beside an op's plots: a row per distinct size of `bandwidth`, and in it each series'
// bandwidth, median time and p99 time at that size ("n/a" where a series has none). Linear in
// sizes times series (perf/report_scale, docs/performance.md).
std::string size_table(const std::vector<PlotSeries>& bandwidth, const std::vector<PlotSeries>& time,
                       const std::vector<PlotSeries>& p99, bool busbw);

}  // namespace fb
