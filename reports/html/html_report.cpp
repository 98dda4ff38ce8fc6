#include "reports/html/html_report.hpp"

#include "reports/acceptance/check_verdicts_output.hpp"

#include "diagnosis/efficiency.hpp"
#include "common/op_catalog.hpp"
#include "common/sizes.hpp"
#include "reports/html/gnuplot.hpp"
#include "reports/html/svg_program.hpp"
#include "reports/html/html_escape.hpp"
#include "reports/html/pairwise_matrix.hpp"
#include "diagnosis/verdict.hpp"
#include "reports/html/soak_plots.hpp"
#include "common/robust_statistics.hpp"
#include "results/provenance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace fb {

using diagnosis::CheckKind;
using diagnosis::CheckVerdict;
using diagnosis::Decision;
using diagnosis::ComparedRow;
using diagnosis::EfficiencySummary;
using diagnosis::Finding;
using diagnosis::OpComparison;
using diagnosis::ReportVerdict;
using diagnosis::Significance;
using diagnosis::VerdictStatus;
using diagnosis::spread_recorded;
using diagnosis::name_of;
namespace {

constexpr std::string_view style = R"(
body { font-family: sans-serif; margin: 2em; color: #222; max-width: 1900px; }
h1 { margin-bottom: 0.2em; }
.verdict { font-size: 1.4em; font-weight: bold; padding: 0.5em 1em; border-radius: 4px; display: inline-block; }
.verdict.pass { background: #d9f2d9; color: #145214; }
.verdict.fail { background: #f8d7d7; color: #7a1010; }
.verdict.not-judged { background: #e8e8e8; color: #333; }
.verdict.inconclusive { background: #fbeecb; color: #6b4a00; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.status-pass { color: #145214; font-weight: bold; }
td.status-fail { color: #7a1010; font-weight: bold; }
td.status-skip { color: #666; }
td.status-inconclusive { color: #6b4a00; font-weight: bold; }
tr.regression td { background: #f8d7d7; }
tr.improvement td { background: #d9f2d9; }
td.slow { outline: 3px solid #c00000; outline-offset: -3px; font-weight: bold; }
.plots { display: flex; flex-wrap: wrap; gap: 1em; }
.plot svg { width: 960px; height: auto; }
.plots .table { max-width: 100%; overflow-x: auto; }
.topology svg { max-width: 100%; height: auto; }
code { white-space: pre-wrap; overflow-wrap: anywhere; }
@media print { body { margin: 0; max-width: none; } .plot svg { width: 100%; } h2, h3 { break-after: avoid; }
  .plot, tr { break-inside: avoid; } }
)";

std::string h(std::string_view text) { return escape_markup(text); }

std::string optional_number(const std::optional<double>& value) {
  return value ? fmt::format("{:.4g}", *value) : std::string("");
}

// One plot line per result set and placement; pairwise rows fold into their median per size.
// `band` gives each row's other edge of the p99 band (empty: no band).
// NOLINTNEXTLINE(readability-function-cognitive-complexity): folds rows into plot series per set, placement and size, with the optional p99 band
std::vector<PlotSeries> series_for(const std::vector<LoadedResults>& sets, const std::string& op,
                                   std::optional<double> (*value)(const ResultRow&),
                                   std::optional<double> (*band)(const ResultRow&) = nullptr) {
  std::vector<PlotSeries> series;
  for (const LoadedResults& set : sets) {
    for (const bool in_place : {false, true}) {
      std::map<std::uint64_t, std::vector<double>> by_size, band_by_size;
      for (const ResultRow& row : set.results.rows)
        if (row.op == op && row.in_place == in_place)
          if (const auto y = value(row)) {
            by_size[row.bytes].push_back(*y);
            if (const auto edge = band ? band(row) : std::nullopt) band_by_size[row.bytes].push_back(*edge);
          }
      if (by_size.empty()) continue;
      PlotSeries line{fmt::format("{} {}", set.label, in_place ? "in-place" : "out-of-place"), {}, {}};
      for (const auto& [bytes, values] : by_size) {
        line.points.emplace_back(static_cast<double>(bytes), median_of(values));
        const auto edges = band_by_size.find(bytes);
        line.band_edge.push_back(edges == band_by_size.end() ? 0.0 : median_of(edges->second));
      }
      series.push_back(std::move(line));
    }
  }
  return series;
}

std::optional<double> busbw_of(const ResultRow& row) { return row.busbw_gbps; }
std::optional<double> algbw_of(const ResultRow& row) { return row.algbw_gbps; }
std::optional<double> time_of(const ResultRow& row) { return row.time_median_us; }
std::optional<double> p99_time_of(const ResultRow& row) {
  if (!reports_statistic(row, "time_p99_us")) return std::nullopt;
  return row.time_p99_us;
}
// The bandwidth the p99 time gives: the lower edge of the bandwidth band.
std::optional<double> p99_bandwidth_of(const ResultRow& row) {
  const std::optional<double> p99 = p99_time_of(row);
  if (!p99 || *p99 <= 0 || row.time_median_us <= 0) return std::nullopt;
  const double median_bandwidth = row.busbw_gbps ? *row.busbw_gbps : row.algbw_gbps;
  return median_bandwidth * row.time_median_us / *p99;
}

bool any_busbw(const std::vector<LoadedResults>& sets, const std::string& op) {
  for (const LoadedResults& set : sets)
    for (const ResultRow& row : set.results.rows)
      if (row.op == op && row.busbw_gbps) return true;
  return false;
}

std::set<std::string> ops_in(const std::vector<LoadedResults>& sets) {
  std::set<std::string> ops;
  for (const LoadedResults& set : sets)
    for (const ResultRow& row : set.results.rows) ops.insert(row.op);
  return ops;
}

std::string plot_div(const LogLogPlot& plot) { return fmt::format("<div class=\"plot\">{}</div>\n", render_svg(plot)); }

std::string findings_table(const std::vector<Finding>& findings) {
  if (findings.empty()) return "<p>No findings.</p>\n";
  std::string html = "<table class=\"findings\"><tr><th>kind</th><th>subject</th><th>expected</th><th>measured</th>"
                     "<th>unit</th><th>ratio</th><th>evidence</th></tr>\n";
  for (const Finding& f : findings)
    html += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td>"
                        "<td class=\"num\">{}</td><td>{}</td></tr>\n",
                        h(f.kind), h(f.subject), optional_number(f.expected), optional_number(f.measured), h(f.unit),
                        optional_number(f.ratio()), h(f.evidence_text()));
  return html + "</table>\n";
}

std::string_view status_class(const CheckVerdict& v) {
  if (v.skipped) return "skip";
  switch (v.decision) {
    case Decision::pass: return "pass";
    case Decision::inconclusive: return "inconclusive";
    case Decision::fail: break;
  }
  return "fail";
}

std::string verdict_section(const ReportInput& input) {
  const ReportVerdict& verdict = input.judged.verdict;
  std::string html = "<section id=\"verdict\"><h2>Verdict</h2>\n";
  const std::string_view css = verdict.status == VerdictStatus::pass           ? "pass"
                               : verdict.status == VerdictStatus::fail         ? "fail"
                               : verdict.status == VerdictStatus::inconclusive ? "inconclusive"
                                                                               : "not-judged";
  html += fmt::format("<p class=\"verdict {}\">{}</p>\n", css, h(verdict_headline(verdict)));
  std::string judged;
  for (const std::string& what : verdict.judged) judged += "<li>" + h(what) + "</li>";
  html += judged.empty() ? "<p>Judged against: nothing (no thresholds, no topology, no validated rows).</p>\n"
                         : "<p>Judged against:</p>\n<ul class=\"judged\">" + judged + "</ul>\n";
  if (input.judged.acceptance) {
    html += "<h3>Acceptance checks</h3>\n<table class=\"acceptance\"><tr><th>check</th><th>kind</th><th>verdict</th>"
            "<th>rows</th><th>statement</th></tr>\n";
    for (const CheckVerdict& v : input.judged.acceptance->checks)
      html +=
          fmt::format("<tr><td>{}</td><td>{}</td><td class=\"status-{}\">{}</td><td class=\"num\">{}</td>"
                      "<td>{}</td></tr>\n",
                      h(v.check.name), name_of(v.check.kind), status_class(v), verdict_text(v), v.rows, h(v.statement));
    html += "</table>\n";
  }
  html += "<h3>Findings</h3>\n" + findings_table(verdict.findings);
  return html + "</section>\n";
}

// A number with at least 3 significant digits and no exponent a person has to decode.
std::string readable(double value) {
  if (value == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  if (magnitude >= 5) return fmt::format("{:.0f}", value);
  if (magnitude < 0) return fmt::format("{:.3g}", value);  // 0.01 as the source wrote it, not 0.0100
  return fmt::format("{:.{}f}", value, std::clamp(2 - magnitude, 0, 9));
}

// Thresholds that bound this op's bandwidth, drawn over the sizes they select.
std::vector<ReferenceLine> threshold_lines(const ReportInput& input, const std::string& op, bool busbw, double x_min,
                                           double x_max) {
  std::vector<ReferenceLine> lines;
  if (!input.judged.acceptance) return lines;
  for (const CheckVerdict& v : input.judged.acceptance->checks) {
    const diagnosis::Check& check = v.check;
    if (check.kind != CheckKind::min_bandwidth || (!check.selection.op.empty() && check.selection.op != op)) continue;
    if ((check.metric == "busbw_gbps") != busbw) continue;
    const double from = static_cast<double>(check.selection.bytes.value_or(check.selection.min_bytes.value_or(0)));
    const double to = static_cast<double>(check.selection.bytes.value_or(check.selection.max_bytes.value_or(0)));
    lines.push_back({fmt::format("threshold {} GB/s (check at line {})", readable(check.limit), check.line),
                     from > 0 ? std::max(from, x_min) : x_min, to > 0 ? std::min(to, x_max) : x_max, check.limit});
  }
  return lines;
}

// The model's expected bandwidth per size, as a dashed line (rows that carry an expectation).
std::optional<PlotSeries> expected_series(const std::vector<LoadedResults>& sets, const std::string& op) {
  std::map<std::uint64_t, std::vector<double>> by_size;
  for (const LoadedResults& set : sets)
    for (const ResultRow& row : set.results.rows)
      if (row.op == op && row.expected_busbw_gbps) by_size[row.bytes].push_back(*row.expected_busbw_gbps);
  if (by_size.empty()) return std::nullopt;
  PlotSeries line{"topology model expected", {}, {}};
  for (const auto& [bytes, values] : by_size) line.points.emplace_back(static_cast<double>(bytes), median_of(values));
  return line;
}

// The numbers behind the plots: per size and series the median bandwidth, median and p99 time.
}  // namespace

// Each series' values by size, the first series of a title and its first point at a size kept (as
// a scan of the series in order finds them): a cell is then one lookup, not a scan of every series'
// every point, which made a table of 100,000 sizes take 28.5 s.
using ValuesBySize = std::unordered_map<double, double>;
static std::unordered_map<std::string, ValuesBySize> values_by_title(const std::vector<PlotSeries>& all) {
  std::unordered_map<std::string, ValuesBySize> by_title;
  for (const PlotSeries& series : all) {
    ValuesBySize& values = by_title[series.title];
    values.reserve(values.size() + series.points.size());
    for (const auto& [x, y] : series.points) values.try_emplace(x, y);
  }
  return by_title;
}

std::string size_table(const std::vector<PlotSeries>& bandwidth, const std::vector<PlotSeries>& time,
                       const std::vector<PlotSeries>& p99, bool busbw) {
  std::vector<double> sizes;
  for (const PlotSeries& series : bandwidth)
    for (const auto& point : series.points) sizes.push_back(point.first);
  std::ranges::sort(sizes);
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  const std::array<std::unordered_map<std::string, ValuesBySize>, 3> values{values_by_title(bandwidth),
                                                                            values_by_title(time),
                                                                            values_by_title(p99)};
  const auto value_at = [](const std::unordered_map<std::string, ValuesBySize>& by_title, const std::string& title,
                           double x) -> std::string {
    const auto series = by_title.find(title);
    if (series == by_title.end()) return "n/a";
    const auto point = series->second.find(x);
    return point == series->second.end() ? "n/a" : readable(point->second);
  };
  std::string html = "<table class=\"sizes\"><tr><th rowspan=\"2\">size</th>";
  std::string second;
  for (const PlotSeries& series : bandwidth) {
    html += fmt::format("<th colspan=\"3\">{}</th>", h(series.title));
    second += fmt::format("<th>{} GB/s</th><th>time us</th><th>p99 us</th>", busbw ? "busbw" : "algbw");
  }
  html += "</tr>\n<tr>" + second + "</tr>\n";
  for (const double x : sizes) {
    html += fmt::format("<tr><td class=\"num\">{}</td>", format_size_bytes(static_cast<std::uint64_t>(x)));
    for (const PlotSeries& series : bandwidth)
      html += fmt::format("<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
                          value_at(values[0], series.title, x), value_at(values[1], series.title, x),
                          value_at(values[2], series.title, x));
    html += "</tr>\n";
  }
  return html + "</table>\n";
}

namespace {

std::string plots_section(const ReportInput& input) {
  if (ops_in(input.sets).empty()) return {};
  std::string html = "<section id=\"plots\"><h2>Bandwidth and time per size</h2>\n"
                     "<p>Bandwidth on a linear axis (the median; the shaded band reaches down to the bandwidth of "
                     "the p99 time), time on a logarithmic one. Dashed: acceptance thresholds (red) and the "
                     "topology model's expectation. Pair rows fold into their median per size.</p>\n";
  for (const std::string& op : ops_in(input.sets)) {
    const bool busbw = any_busbw(input.sets, op);
    std::vector<PlotSeries> bandwidth = series_for(input.sets, op, busbw ? busbw_of : algbw_of, p99_bandwidth_of);
    const std::vector<PlotSeries> time = series_for(input.sets, op, time_of);
    const std::vector<PlotSeries> p99 = series_for(input.sets, op, p99_time_of);
    const std::string table = size_table(bandwidth, time, p99, busbw);
    double x_min = 0, x_max = 0;
    for (const PlotSeries& series : bandwidth)
      for (const auto& point : series.points) {
        x_min = x_min == 0 ? point.first : std::min(x_min, point.first);
        x_max = std::max(x_max, point.first);
      }
    LogLogPlot plot{op + (busbw ? " bus bandwidth" : " algorithm bandwidth"),
                    "size (bytes)",
                    busbw ? "busbw (GB/s)" : "algbw (GB/s)",
                    true,
                    std::move(bandwidth),
                    false,
                    threshold_lines(input, op, busbw, x_min, x_max)};
    if (busbw)
      if (std::optional<PlotSeries> expected = expected_series(input.sets, op)) plot.series.push_back(*expected);
    html += fmt::format("<h3>{}</h3>\n<div class=\"plots\">\n", h(op));
    html += plot_div(plot);
    html += "<div class=\"table\">" + table + "</div>\n";
    html += plot_div({op + " median time", "size (bytes)", "time (us)", true, time, true, {}});
    html += "</div>\n";
  }
  return html + "</section>\n";
}

std::vector<LogLogPlot> soak_plots(const std::vector<LoadedResults>& sets) {
  std::vector<LogLogPlot> plots;
  for (const LoadedResults& set : sets) {
    std::vector<LogLogPlot> of_set = bandwidth_over_time_plots(set.results.rows, sets.size() > 1 ? set.label : "");
    std::ranges::move(of_set, std::back_inserter(plots));
  }
  return plots;
}

std::string soak_section(const std::vector<LoadedResults>& sets) {
  const std::vector<LogLogPlot> plots = soak_plots(sets);
  if (plots.empty()) return {};
  std::string html = fmt::format(
      "<section id=\"over-time\"><h2>Bandwidth over time</h2>\n<p>Each point is one repetition of the sweep "
      "(the median over its pairs and placements). A pair that is slow in some repetitions only is drawn apart: "
      "of pair ops the largest size is also drawn per pair, the {} least steady pairs first.</p>\n"
      "<div class=\"plots\">\n",
      soak_plot_max_pairs);
  for (const LogLogPlot& plot : plots) html += plot_div(plot);
  return html + "</div>\n</section>\n";
}

// Cell colour from red (slow) through yellow to green, relative to the matrix median.
std::string heat_colour(const PairwiseMatrix& m, double cell) {
  const double goodness = m.latency ? (cell > 0 ? m.median / cell : 1.0) : (m.median > 0 ? cell / m.median : 1.0);
  const double relative = std::clamp(goodness, 0.5, 1.0);
  const int hue = static_cast<int>(std::lround((relative - 0.5) * 2 * 120));
  return fmt::format("hsl({}, 70%, 80%)", hue);
}

// Up to this many endpoints the whole matrix is drawn; beyond, cells would be unreadable and the
// page wider than any screen, so each endpoint is summarised and the worst listed.
constexpr std::size_t full_matrix_endpoints = 48;
constexpr std::size_t worst_endpoints_listed = 24;

std::string full_matrix(const PairwiseMatrix& m) {
  std::string html = "<div class=\"table\"><table class=\"heatmap\"><tr><th>src \\ dst</th>";
  for (const std::string& endpoint : m.endpoints) html += fmt::format("<th>{}</th>", h(endpoint));
  html += "</tr>\n";
  for (std::size_t s = 0; s < m.endpoints.size(); ++s) {
    html += fmt::format("<tr><th>{}</th>", h(m.endpoints[s]));
    for (std::size_t d = 0; d < m.endpoints.size(); ++d) {
      const std::optional<double>& cell = m.values[s][d];
      if (!cell) {
        html += "<td></td>";
        continue;
      }
      const bool slow = m.is_slow(*cell);
      html += fmt::format("<td class=\"num{}\" style=\"background: {}\">{}{}</td>", slow ? " slow" : "",
                          heat_colour(m, *cell), readable(*cell), slow ? " slow" : "");
    }
    html += "</tr>\n";
  }
  return html + "</table></div>\n";
}

// Per endpoint: the median of its cells as source and as destination, and its slow cells; the
// worst endpoints first (names sort by leaf where host names number hosts leaf by leaf).
std::string endpoint_summary(const PairwiseMatrix& m) {
  struct Summary {
    std::size_t index;
    double median;
    std::size_t slow;
  };
  std::vector<Summary> summaries;
  std::size_t slow_cells = 0;
  for (std::size_t e = 0; e < m.endpoints.size(); ++e) {
    std::vector<double> cells;
    std::size_t slow = 0;
    for (std::size_t other = 0; other < m.endpoints.size(); ++other)
      for (const std::optional<double>& cell : {m.values[e][other], m.values[other][e]})
        if (cell) {
          cells.push_back(*cell);
          slow += m.is_slow(*cell) ? 1 : 0;
        }
    slow_cells += slow;
    if (!cells.empty()) summaries.push_back({e, median_of(cells), slow});
  }
  std::sort(summaries.begin(), summaries.end(), [&](const Summary& a, const Summary& b) {
    return std::tie(b.slow, m.latency ? a.median : b.median) < std::tie(a.slow, m.latency ? b.median : a.median);
  });
  std::string html =
      fmt::format("<p>{} endpoints: too many for a readable matrix. {} of their cells are slow "
                  "(counted at both ends); the {} worst endpoints:</p>\n",
                  m.endpoints.size(), slow_cells / 2, std::min(worst_endpoints_listed, summaries.size()));
  html += fmt::format("<table class=\"endpoints\"><tr><th>endpoint</th><th>median {}</th><th>of the matrix median</th>"
                      "<th>slow cells</th></tr>\n",
                      m.unit());
  for (std::size_t i = 0; i < summaries.size() && i < worst_endpoints_listed; ++i) {
    const Summary& summary = summaries[i];
    html += fmt::format("<tr><td>{}</td><td class=\"num\" style=\"background: {}\">{}</td><td class=\"num\">{:.0f}%"
                        "</td><td class=\"num\">{}</td></tr>\n",
                        h(m.endpoints[summary.index]), heat_colour(m, summary.median), readable(summary.median),
                        m.median > 0 ? 100 * summary.median / m.median : 0.0, summary.slow);
  }
  return html + "</table>\n";
}

std::string heatmap_section(const std::vector<ResultRow>& rows) {
  const std::vector<PairwiseMatrix> matrices = build_pairwise_matrices(rows);
  if (matrices.empty()) return {};
  std::string html = "<section id=\"pairwise\"><h2>Pairwise</h2>\n";
  for (const PairwiseMatrix& m : matrices) {
    html += fmt::format("<h3>{} at {} ({} {}, source row to destination column)</h3>\n"
                        "<p>Median {} {}; cells marked <strong>slow</strong> are {} {:.0f}% of it.</p>\n",
                        h(m.op), format_size_bytes(m.bytes), m.latency ? "median time" : "algbw", m.unit(),
                        readable(m.median), m.unit(), m.latency ? "over 100 /" : "under",
                        100 * PairwiseMatrix::slow_fraction);
    html += m.endpoints.size() <= full_matrix_endpoints ? full_matrix(m) : endpoint_summary(m);
  }
  return html + "</section>\n";
}

// concurrent: each pair alone against all pairs at once, at the largest size; the ratio is what
// sharing the fabric costs that pair.
std::string concurrent_section(const std::vector<ResultRow>& rows) {
  const auto measures_contention_row = [](const ResultRow& row) {
    const OpTraits* op = find_op(row.op);
    return op && measures_contention(*op);
  };
  std::uint64_t bytes = 0;
  for (const ResultRow& row : rows)
    if (measures_contention_row(row)) bytes = std::max(bytes, row.bytes);
  std::map<std::pair<std::string, std::string>, std::pair<std::optional<double>, std::optional<double>>> by_pair;
  for (const ResultRow& row : rows) {
    if (!measures_contention_row(row) || row.bytes != bytes) continue;
    auto& [alone, together] = by_pair[{row.src_host + ":" + std::to_string(row.src_rank.value_or(-1)),
                                       row.dst_host + ":" + std::to_string(row.dst_rank.value_or(-1))}];
    (row.concurrent_flows.value_or(1) == 1 ? alone : together) = row.algbw_gbps;
  }
  struct Pair {
    std::string src, dst;
    double alone, together;
  };
  std::vector<Pair> pairs;
  for (const auto& [key, values] : by_pair)
    if (values.first && values.second && *values.first > 0)
      pairs.push_back({key.first, key.second, *values.first, *values.second});
  if (pairs.empty()) return {};
  std::sort(pairs.begin(), pairs.end(),
            [](const Pair& a, const Pair& b) { return a.together / a.alone < b.together / b.alone; });
  std::vector<double> ratios;
  for (const Pair& p : pairs) ratios.push_back(p.together / p.alone);
  std::string html =
      fmt::format("<section id=\"concurrent\"><h2>concurrent at {}: alone against together</h2>\n"
                  "<p>{} pairs across the cut; median together/alone {:.3f} (1: no blocking). "
                  "Lowest ratio first{}.</p>\n<table class=\"concurrent\"><tr><th>src</th><th>dst</th>"
                  "<th>alone GB/s</th><th>together GB/s</th><th>together / alone</th></tr>\n",
                  format_size_bytes(bytes), pairs.size(), median_of(ratios),
                  pairs.size() > worst_endpoints_listed ? fmt::format(", the {} lowest", worst_endpoints_listed) : "");
  for (std::size_t i = 0; i < pairs.size() && i < worst_endpoints_listed; ++i)
    html += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                        "<td class=\"num\">{:.3f}</td></tr>\n",
                        h(pairs[i].src), h(pairs[i].dst), readable(pairs[i].alone), readable(pairs[i].together),
                        pairs[i].together / pairs[i].alone);
  return html + "</table>\n</section>\n";
}

// Rows that carry the topology model's expectation (run or report with --topology).
std::string expectation_section(const std::vector<EfficiencySummary>& summaries) {
  if (summaries.empty()) return {};
  std::string html = "<section id=\"expectation\"><h2>Against the topology model</h2>\n"
                     "<p>Efficiency: measured bus bandwidth over the model's, or the model's latency over the "
                     "measured one, in percent; pairs are judged alone on their route. Pair rows fold into their "
                     "median per size. These are against the model's nominal link rates, as the topology input "
                     "states them: the findings are not. The diagnosis scales the model by the median measured "
                     "pair (its calibration), so a healthy majority is 100% there whatever this table shows, and a "
                     "finding's ratio is against that scale.</p>\n<table "
                     "class=\"expectation\"><tr><th>op</th><th>size</th><th>placement</th>"
                     "<th>rows</th><th>expected</th><th>measured</th><th>unit</th><th>%exp</th><th>lowest %exp</th>"
                     "<th>lowest row</th></tr>\n";
  for (const EfficiencySummary& s : summaries)
    html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>"
                        "<td class=\"num\">{:.4g}</td><td class=\"num\">{:.4g}</td><td>{}</td>"
                        "<td class=\"num\">{:.1f}</td><td class=\"num\">{:.1f}</td><td>{}</td></tr>\n",
                        h(s.op), format_size_bytes(s.bytes), s.in_place ? "in-place" : "out-of-place", s.rows,
                        s.median_expected, s.median_measured, s.unit, s.median_efficiency_pct, s.lowest_efficiency_pct,
                        h(s.lowest_row));
  return html + "</table>\n</section>\n";
}

std::optional<double> busbw_or_algbw(const ResultRow& row) {
  return row.busbw_gbps ? row.busbw_gbps : std::optional<double>(row.algbw_gbps);
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one HTML table with a cell per comparison outcome (faster, slower, within noise, one side missing)
std::string comparison_section(const diagnosis::Comparison& comparison, const std::string& label_a,
                               const std::string& label_b) {
  std::string html = fmt::format("<section id=\"compare\"><h2>Comparison: B = {} against A = {}</h2>\n"
                                 "<p>Time ratio B/A under 1: B is faster. A difference is marked when it exceeds "
                                 "the run-to-run spread of both sides (coefficient of variation or p99 over median, "
                                 "whichever is larger, summed).</p>\n",
                                 h(label_b), h(label_a));
  for (const OpComparison& op : comparison.ops) {
    const std::size_t regressions = op.regressions;
    html += fmt::format("<h3>{}: geometric mean time ratio B/A {:.3f} ({:+.1f}% time); {} of {} sizes regressed</h3>\n",
                        h(op.op), op.geomean_time_ratio_b_over_a, 100 * (op.geomean_time_ratio_b_over_a - 1),
                        regressions, op.rows.size());
    LogLogPlot plot{op.op + " bandwidth, A against B", "size (bytes)", "busbw or algbw (GB/s)", true, {}, false, {}};
    for (const bool in_place : {false, true}) {
      PlotSeries a{fmt::format("A {} {}", label_a, in_place ? "in-place" : "out-of-place"), {}, {}};
      PlotSeries b{fmt::format("B {} {}", label_b, in_place ? "in-place" : "out-of-place"), {}, {}};
      for (const ComparedRow& row : op.rows) {
        if (row.a.in_place != in_place) continue;
        if (const auto y = busbw_or_algbw(row.a)) a.points.emplace_back(static_cast<double>(row.a.bytes), *y);
        if (const auto y = busbw_or_algbw(row.b)) b.points.emplace_back(static_cast<double>(row.b.bytes), *y);
      }
      if (!a.points.empty()) plot.series.push_back(std::move(a));
      if (!b.points.empty()) plot.series.push_back(std::move(b));
    }
    html += "<div class=\"plots\">\n" + plot_div(plot) + "</div>\n";
    html += "<table class=\"comparison\"><tr><th>placement</th><th>size</th><th>ranks</th><th>time A (us)</th>"
            "<th>time B (us)</th><th>B/A time</th><th>change</th><th>spread</th><th>difference</th></tr>\n";
    for (const ComparedRow& row : op.rows) {
      // Coloured only beyond the spread: a difference inside it may be noise.
      const bool beyond =
          row.significance == Significance::beyond_spread || row.significance == Significance::beyond_default_bound;
      const std::string_view css = !beyond ? "" : row.regression ? " class=\"regression\"" : " class=\"improvement\"";
      html += fmt::format("<tr{}><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}"
                          "</td><td class=\"num\">{}</td><td class=\"num\">{:.3f}</td><td class=\"num\">{:+.1f}%</td>"
                          "<td class=\"num\">{}</td><td>{}</td></tr>\n",
                          css, row.a.in_place ? "in-place" : "out-of-place", format_size_bytes(row.a.bytes),
                          row.a.nranks, readable(row.a.time_median_us), readable(row.b.time_median_us),
                          row.time_ratio_b_over_a, 100 * (row.time_ratio_b_over_a - 1),
                          spread_recorded(row.significance) ? fmt::format("{:.1f}%", 100 * row.spread_fraction)
                                                            : std::string("n/a"),
                          row.regression ? "B slower: " + std::string(name_of(row.significance))
                                         : std::string(name_of(row.significance)));
    }
    html += "</table>\n";
  }
  return html + "</section>\n";
}

std::string provenance_section(const std::vector<LoadedResults>& sets) {
  std::string html = "<section id=\"provenance\"><h2>Provenance</h2>\n";
  for (const LoadedResults& set : sets) {
    const Provenance& p = set.results.provenance;
    html += fmt::format("<h3>{}</h3>\n<table class=\"provenance\">\n", h(set.label));
    const auto row_markup = [&](std::string_view key, const std::string& value_html) {
      html += fmt::format("<tr><th>{}</th><td><code>{}</code></td></tr>\n", key, value_html);
    };
    const auto row = [&](std::string_view key, const std::string& value) { row_markup(key, h(value)); };
    row_markup("file", path_markup(set.source.string()));
    row("run id", p.run_id);
    row("backend", p.backend);
    row("tool version", p.tool_version);
    row("git revision", p.git_revision);
    row("start time", p.start_time);
    row("command line", p.command_line);
    row("ranks, nodes, ranks per node", fmt::format("{}, {}, {}", p.nranks, p.nodes, p.ranks_per_node));
    row("hosts", describe_rank_hosts(p.rank_hosts));
    row("kernel", p.kernel);
    if (!p.host_buffer_pages.empty()) row("host buffers", p.host_buffer_pages);
    for (const auto& [library, version] : p.libraries) row("library " + h(library), version);
    for (const auto& [name, value] : p.environment) row("env " + h(name), value);
    // What an importer inferred because the log did not say it: shown beside what it did say.
    for (const std::string& assumption : p.assumptions) row("assumed", assumption);
    html += "</table>\n";
  }
  return html + "</section>\n";
}

}  // namespace

std::size_t expected_plot_count(const ReportInput& input) {
  return 2 * ops_in(input.sets).size() + soak_plots(input.sets).size() +
         (input.judged.comparison ? input.judged.comparison->ops.size() : 0) + (input.topology_dot ? 1 : 0);
}

std::string verdict_headline(const ReportVerdict& verdict) {
  const std::string counted_findings =
      fmt::format("{} finding{}", verdict.findings.size(), verdict.findings.size() == 1 ? "" : "s");
  if (verdict.checks == 0)
    return verdict.status == VerdictStatus::fail
               ? fmt::format("FAIL: {} (no thresholds given)", counted_findings)
               : fmt::format("{}: no thresholds given, no acceptance checks", name_of(verdict.status));
  std::string text;
  if (verdict.failed_checks > 0)
    text = fmt::format("{}: {} of {} checks failed", name_of(verdict.status), verdict.failed_checks, verdict.checks);
  else if (verdict.inconclusive_checks > 0)
    text = fmt::format("{}: {} of {} checks could not be decided", name_of(verdict.status), verdict.inconclusive_checks,
                       verdict.checks);
  else
    text = fmt::format("{}: {} of {} checks passed", name_of(verdict.status), verdict.checks, verdict.checks);
  if (verdict.failed_checks > 0 && verdict.inconclusive_checks > 0)
    text += fmt::format(", {} could not be decided", verdict.inconclusive_checks);
  if (!verdict.findings.empty()) text += "; " + counted_findings;
  return text;
}

std::string render_html_report(const ReportInput& input) {
  const std::vector<ResultRow> rows = all_rows(input.sets);

  std::string labels;
  for (const LoadedResults& set : input.sets) labels += (labels.empty() ? "" : ", ") + set.label;
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      // No script, no external loads: the report opens from disk and cannot run input text.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "img-src data:\">\n<title>fabricbench report: {}</title>\n<style>{}</style>\n</head>\n<body>\n"
      "<h1>fabricbench report</h1>\n<p>Result sets: {}</p>\n",
      h(labels), style, h(labels));
  html += verdict_section(input);
  html += plots_section(input);
  html += soak_section(input.sets);
  html += heatmap_section(rows);
  html += concurrent_section(rows);
  html += expectation_section(input.judged.fabric.efficiency);
  if (input.topology_dot)
    html += "<section id=\"topology\"><h2>Topology</h2>\n<p>Links the findings name are drawn red.</p>\n"
            "<div class=\"topology\">" +
            render_dot_svg(*input.topology_dot, "the topology") + "</div>\n</section>\n";
  if (input.judged.comparison) html += comparison_section(*input.judged.comparison, input.label_a, input.label_b);
  html += provenance_section(input.sets);
  return html + "</body>\n</html>\n";
}

}  // namespace fb
