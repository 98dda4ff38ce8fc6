#include "reports/campaign/campaign_record.hpp"

#include "reports/acceptance/check_verdicts_output.hpp"
#include "reports/campaign/record_measured.hpp"

#include "common/sizes.hpp"
#include "reports/html/gnuplot.hpp"
#include "reports/html/html_escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace fb {

using diagnosis::CheckVerdict;
using diagnosis::Finding;
using diagnosis::name_of;
namespace {

using diagnosis::Decision;

std::string h(std::string_view text) { return escape_markup(text); }

// 14 px plot text on a 720 px canvas: scaled to A4's 180 mm text width it is 9.9 pt, to Letter's
// 186 mm 10.2 pt; the report's 960 px canvas would print at 7.4 pt.
constexpr int plot_width_px = 720;
constexpr int plot_height_px = 420;

// Tables lay out automatically at the text width: a header's words and a verdict never break (the
// column is at least as wide as its longest header word or mark), file names and paths break only
// at their separators (path_markup), while other names and hashes in the cells may break anywhere,
// so no long name pushes a table past the page (campaign_record_test's PDF measurements hold it at
// A4 and Letter).
constexpr std::string_view style = R"(
body { font-family: "DejaVu Sans", sans-serif; font-size: 10.5pt; color: #111; max-width: 1000px; margin: 1.5em auto;
       line-height: 1.35; }
h1 { font-size: 18pt; margin: 0 0 0.3em; } h2 { font-size: 14pt; margin: 1.2em 0 0.4em; border-bottom: 1px solid #999; }
h3 { font-size: 11.5pt; margin: 1em 0 0.3em; }
table { border-collapse: collapse; margin: 0.4em 0; width: 100%; table-layout: auto; }
th, td { border: 1px solid #bbb; padding: 2px 4px; font-size: 8.5pt; vertical-align: top; text-align: left; }
th { background: #f0f0f0; overflow-wrap: normal; word-break: normal; hyphens: manual; }
td { overflow-wrap: anywhere; } td.num { text-align: right; white-space: nowrap; } td.mark { white-space: nowrap; }
.path { overflow-wrap: normal; word-break: normal; }
tr.fail td { background: #fde0e0; } tr.inconclusive td { background: #fff3cd; }
.banner { font-size: 14pt; font-weight: bold; padding: 0.5em 0.8em; border: 2px solid; margin: 0.8em 0; }
.banner.PASS { border-color: #2a7a2a; background: #e6f4e6; } .banner.FAIL { border-color: #b00000; background: #fde0e0; }
.banner.INCONCLUSIVE { border-color: #a07000; background: #fff3cd; }
.mark { font-weight: bold; } .plot svg, .stage-plot svg { width: 100%; height: auto; display: block; }
.stage-plot { break-inside: avoid-page; } ul.findings li { margin: 0.2em 0; }
pre { white-space: pre-wrap; word-break: break-all; font-size: 8.5pt; border: 1px solid #ccc; padding: 0.5em;
      background: #fafafa; }
.signoff-block { break-inside: avoid-page; } .signoff { display: grid; grid-template-columns: 1fr 1fr; gap: 2.5em; break-inside: avoid; margin-top: 1em; }
.signoff div.field { border-bottom: 1px solid #000; height: 2.4em; margin-bottom: 0.2em; }
.signoff span { font-size: 9pt; color: #444; }
.check { break-inside: avoid-page; }
.note { border: 2px solid #a07000; background: #fff3cd; padding: 0.4em 0.6em; }
table.hashes code { font-size: 8pt; overflow-wrap: anywhere; }
@media print { body { max-width: none; margin: 0; } h2, h3 { break-after: avoid; } tr { break-inside: avoid; } }
)";

// `text` inside a CSS string: quotes and backslashes escaped, and nothing that ends the style.
std::string css_string(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '<' || c == '\n') continue;
    out += c;
  }
  return out;
}

// Every printed page names the record (its ID and system) at its head and numbers itself at its
// foot, so that a page separated from the others still says which record it belongs to.
std::string page_style(Paper paper, const CampaignRecord& record) {
  if (paper == Paper::screen) return {};
  return fmt::format("@page {{ size: {}; margin: 18mm 15mm 18mm 15mm; "
                     "@top-left {{ content: \"acceptance record {}\"; font-size: 9pt; font-family: sans-serif; }} "
                     "@top-right {{ content: \"record ID {}\"; font-size: 9pt; font-family: sans-serif; }} "
                     "@bottom-center {{ content: \"page \" counter(page) \" of \" counter(pages); font-size: 9pt; "
                     "font-family: sans-serif; }} }}\n",
                     paper == Paper::a4 ? "A4" : "letter", css_string(record.system), css_string(record.record_id));
}

std::string_view row_class(Decision decision) {
  switch (decision) {
    case Decision::fail: return " class=\"fail\"";
    case Decision::inconclusive: return " class=\"inconclusive\"";
    case Decision::pass: break;
  }
  return "";
}

std::string_view mark_of(Decision decision) {
  switch (decision) {
    case Decision::fail: return "FAIL &#x2717;";
    case Decision::inconclusive: return "INCONCLUSIVE ?";
    case Decision::pass: break;
  }
  return "PASS";
}

std::string value_text(double value) { return fmt::format("{:.4g}", value); }

// Plot labels: gnuplot's safe set has no '<' or '>', so words stand in for them ("busbw at >= 1G":
// from 1G on); an apostrophe is left out and any other character outside the set becomes a space,
// so that a plot never shows the '?' gnuplot_safe_text puts in their place.
std::string plot_label(std::string text) {
  for (const auto& [from, to] : {std::pair<std::string_view, std::string_view>{"at >=", "from"},
                                 {">=", "at least"},
                                 {"<=", "at most"},
                                 {">", "over"},
                                 {"<", "under"},
                                 {"&", "and"},
                                 {"'", ""}}) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  }
  std::string plain;
  for (const char c : text) {
    const char shown = gnuplot_safe_text(std::string_view(&c, 1)) == "?" ? ' ' : c;
    if (shown != ' ' || (!plain.empty() && plain.back() != ' ')) plain += shown;
  }
  while (!plain.empty() && plain.back() == ' ') plain.pop_back();
  return plain;
}

bool is_pair(const ResultRow& row) { return row.src_rank.has_value() || !row.src_host.empty(); }

bool has_plot(const CheckVerdict& verdict) { return !verdict.measurements.empty(); }

std::string y_label_of(const CheckVerdict& verdict) {
  if (verdict.unit == "x model") return "measured busbw / model busbw";
  return fmt::format("{} ({})", verdict.check.metric, verdict.unit);
}

// Legend entries and titles break onto a new line after this many characters: at 14 px DejaVu Sans
// (about 8 px a character) 64 characters and the legend's line sample fit the 720 px canvas.
constexpr std::size_t plot_wrap_chars = 64;

// The canvas grows by a text line for each legend line past the six the plot area leaves room
// for, so that a long legend above the plot does not squeeze the curves.
PlotStyle record_plot_style(const LogLogPlot& plot) {
  std::size_t legend_lines = 0;
  for (const PlotSeries& series : plot.series) legend_lines += wrapped_lines(series.title, plot_wrap_chars).size();
  for (const ReferenceLine& line : plot.references) legend_lines += wrapped_lines(line.title, plot_wrap_chars).size();
  legend_lines += wrapped_lines(plot.title, plot_wrap_chars).size() - 1;
  constexpr std::size_t room = 6;
  constexpr int line_px = 18;
  const int extra = legend_lines > room ? line_px * static_cast<int>(legend_lines - room) : 0;
  return {plot_width_px, plot_height_px + extra, true, plot_wrap_chars};
}

// The confidence of each bound as the verdict used it: the bound that passes a measurement at
// alpha, the one that fails it at alpha over the check's measurements (repeated_limit.cpp), so a
// check of three measurements draws a 97.5% and a 99.2% bound at 95%.
std::pair<double, double> bound_confidences_pct(const CheckVerdict& verdict, double confidence) {
  const double alpha = (1 - confidence) / 2;
  const double pass_pct = 100 * (1 - alpha);
  const double fail_pct =
      100 * (1 - alpha / static_cast<double>(std::max<std::size_t>(verdict.measurements.size(), 1)));
  return verdict.higher_is_better ? std::pair{pass_pct, fail_pct} : std::pair{fail_pct, pass_pct};
}

std::string bound_pct_text(double pct) { return fmt::format("{:.1f}%", std::floor(pct * 10 + 1e-6) / 10); }

// The check's measurements against its limit: per size (or per pair) the median over the
// repetitions and its lower and upper confidence bounds (the verdict rests on one of them), and
// the limit as a dashed red line named after the check.
LogLogPlot plot_of_check(const CheckVerdict& verdict, double confidence) {
  const bool pairs = std::all_of(verdict.measurements.begin(), verdict.measurements.end(),
                                 [](const diagnosis::MeasurementVerdict& m) { return is_pair(m.first); });
  LogLogPlot plot;
  plot.title = plot_label(verdict.check.name);
  plot.x_label = pairs ? "pair (numbered as in the table)" : "size (bytes)";
  plot.y_label = y_label_of(verdict);
  plot.x_is_bytes = !pairs;
  plot.x_log = !pairs;
  plot.y_log = !verdict.higher_is_better;
  const auto [lower_pct, upper_pct] = bound_confidences_pct(verdict, confidence);
  // Per op (and placement, ranks): its median, lower bound and upper bound series, in that order.
  std::map<std::string, std::size_t> series_of;
  double x_min = 0;
  double x_max = 0;
  for (std::size_t i = 0; i < verdict.measurements.size(); ++i) {
    const diagnosis::MeasurementVerdict& m = verdict.measurements[i];
    const std::string key =
        pairs ? m.first.op
              : fmt::format("{}{}, {} ranks", m.first.op, m.first.in_place ? " in-place" : "", m.first.nranks);
    const auto [it, added] = series_of.try_emplace(key, plot.series.size());
    if (added) {
      plot.series.push_back({fmt::format("{}: median of repetitions", key), {}, {}});
      plot.series.push_back({fmt::format("{}: lower {} bound", key, bound_pct_text(lower_pct)), {}, {}});
      plot.series.push_back({fmt::format("{}: upper {} bound", key, bound_pct_text(upper_pct)), {}, {}});
    }
    const double x = pairs ? static_cast<double>(i + 1) : static_cast<double>(m.first.bytes);
    plot.series[it->second].points.emplace_back(x, m.verdict.median);
    if (m.verdict.lower) plot.series[it->second + 1].points.emplace_back(x, *m.verdict.lower);
    if (m.verdict.upper) plot.series[it->second + 2].points.emplace_back(x, *m.verdict.upper);
    x_min = x_min == 0 ? x : std::min(x_min, x);
    x_max = std::max(x_max, x);
  }
  std::erase_if(plot.series, [](const PlotSeries& series) { return series.points.empty(); });
  // A single size is drawn in a 16x range around it; the limit spans what is drawn.
  if (x_min == x_max && !pairs) {
    x_min /= 4;
    x_max *= 4;
  }
  if (pairs) {
    x_min = std::max(x_min - 0.5, 0.5);
    x_max += 0.5;
    plot.x_range = {x_min, x_max};
  }
  plot.references.push_back({fmt::format("limit: {}", plot_label(verdict.check.name)), x_min, x_max, verdict.limit});
  return plot;
}

std::string banner(const CampaignRecord& record) {
  const Decision overall = record.judgement.decision;
  std::map<std::string, int> counts;
  for (const CheckVerdict& v : record.judgement.checks) ++counts[verdict_text(v)];
  std::string tally;
  for (const auto& [name, count] : counts) tally += fmt::format("{}{} {}", tally.empty() ? "" : ", ", count, name);
  const double alpha = (1 - record.confidence) / 2;
  return fmt::format("<div class=\"banner {0}\">{0}: {1} checks ({2})</div>\n"
                     "<p>Each limit check is decided at {3:.0f}% confidence from the repetitions of its measurements: "
                     "a check that breaks its limit passes at most {4:.1f}% of the time, one that keeps it fails at "
                     "most {4:.1f}% of the time (distribution-free bounds of the median; see the method below). A "
                     "check the repetitions cannot decide is INCONCLUSIVE, which is not a pass, and says how many "
                     "repetitions would decide it.</p>\n",
                     diagnosis::name_of(overall), record.judgement.checks.size(), tally, 100 * record.confidence,
                     100 * alpha);
}

std::string identity_section(const CampaignRecord& record) {
  std::string html = "<table class=\"identity\">\n";
  const auto row_html = [&](std::string_view key, const std::string& value_html) {
    html += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", key, value_html);
  };
  const auto row = [&](std::string_view key, const std::string& value) { row_html(key, h(value)); };
  const auto file_row = [&](std::string_view key, const RecordFile& file) {
    row_html(key, fmt::format("{} (SHA-256 {})", path_markup(file.path), h(file.sha256)));
  };
  row("customer", record.customer);
  row("system", record.system);
  row("record ID", record.record_id);
  row("campaign started", record.started_at);
  row("campaign finished", record.finished_at.empty() ? "no stage ran" : record.finished_at);
  row("record written", record.written_at);
  file_row("plan", record.plan);
  if (record.thresholds) file_row("thresholds", *record.thresholds);
  if (record.measured_thresholds_sha256)
    row("thresholds when measured",
        record.measured_thresholds_sha256->empty() ? "none" : "SHA-256 " + *record.measured_thresholds_sha256);
  row("fabricbench", fmt::format("{} (git {})", record.tool_version, record.git_revision));
  row_html("results folder", path_markup(record.results_dir));
  html += "</table>\n";
  if (record.measured_thresholds_sha256)
    html += fmt::format("<p class=\"note\"><b>The thresholds changed after measuring.</b> The stages were measured "
                        "under thresholds with SHA-256 <code>{}</code>; this record judges them under <code>{}</code> "
                        "({}). Both hashes are part of this record.</p>\n",
                        record.measured_thresholds_sha256->empty() ? "(none)" : h(*record.measured_thresholds_sha256),
                        record.thresholds ? h(record.thresholds->sha256) : "(none)",
                        record.thresholds ? path_markup(record.thresholds->path) : "no thresholds file");
  return html;
}

// Every raw result file the verdicts rest on, with the SHA-256 it had when its stage ended: the
// campaign refuses to write a record over a file that changed since.
std::string result_files_section(const CampaignRecord& record) {
  std::string html = "<h2>Raw results</h2>\n<p>Each file as its stage wrote it; the campaign checks every hash "
                     "before it judges and refuses a file that changed.</p>\n<table class=\"hashes\"><tr><th>file"
                     "</th><th>SHA-256</th></tr>\n";
  for (const RecordStage& stage : record.stages)
    for (const auto& [path, sha256] : stage.files)
      html += fmt::format("<tr><td>{}</td><td><code>{}</code></td></tr>\n", path_markup(path), h(sha256));
  return html + "</table>\n";
}

std::string checks_table(const CampaignRecord& record) {
  std::string html =
      "<h2>Checks</h2>\n<table class=\"checks\"><tr><th>#</th><th>check</th><th>from</th><th>verdict</th>"
      "<th>rows</th><th>statement</th></tr>\n";
  for (std::size_t i = 0; i < record.judgement.checks.size(); ++i) {
    const CheckVerdict& v = record.judgement.checks[i];
    html += fmt::format("<tr{}><td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"mark\">{}</td>"
                        "<td class=\"num\">{}</td><td>{}</td></tr>\n",
                        v.skipped ? "" : row_class(v.decision), i + 1, h(v.check.name), path_markup(v.origin),
                        v.skipped ? "SKIPPED" : mark_of(v.decision), v.rows, h(v.statement));
  }
  return html + "</table>\n";
}

std::string measurement_table(const CheckVerdict& v, double confidence) {
  const auto [lower_pct, upper_pct] = bound_confidences_pct(v, confidence);
  const bool pairs = std::all_of(v.measurements.begin(), v.measurements.end(),
                                 [](const diagnosis::MeasurementVerdict& m) { return is_pair(m.first); });
  std::string html =
      fmt::format("<table class=\"measurements\"><tr>{}<th "
                  "class=\"subject\">measurement</th><th>repetitions</th><th>median</th><th>lower {} bound</th>"
                  "<th>upper {} bound</th><th>limit ({})</th><th>verdict</th><th>would decide</th></tr>\n",
                  pairs ? "<th class=\"pair\">pair</th>" : "", bound_pct_text(lower_pct), bound_pct_text(upper_pct),
                  h(v.unit));
  for (std::size_t i = 0; i < v.measurements.size(); ++i) {
    const diagnosis::MeasurementVerdict& m = v.measurements[i];
    const auto bound = [](std::optional<double> b) { return b ? value_text(*b) : std::string("none"); };
    html += fmt::format("<tr{}>{}<td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                        "<td class=\"num\">{}</td><td class=\"num\">{} {}</td><td class=\"mark\">{}</td>"
                        "<td class=\"num\">{}</td></tr>\n",
                        row_class(m.verdict.decision), pairs ? fmt::format("<td class=\"num\">{}</td>", i + 1) : "",
                        h(m.subject), m.verdict.samples, value_text(m.verdict.median), bound(m.verdict.lower),
                        bound(m.verdict.upper), v.higher_is_better ? "&ge;" : "&le;", value_text(v.limit),
                        mark_of(m.verdict.decision),
                        m.verdict.decision != Decision::inconclusive ? std::string("")
                        : m.verdict.repetitions_needed               ? std::to_string(*m.verdict.repetitions_needed)
                                                                     : std::string("none decides"));
  }
  return html + "</table>\n";
}

std::string check_details(const CampaignRecord& record) {
  std::string html = "<h2>Each check, its measurements and its limit</h2>\n";
  for (std::size_t i = 0; i < record.judgement.checks.size(); ++i) {
    const CheckVerdict& v = record.judgement.checks[i];
    html += fmt::format("<section class=\"check\" id=\"check-{}\"><h3>{}. {}: {}</h3>\n<p>{}</p>\n", i + 1, i + 1,
                        h(v.check.name), verdict_text(v), h(v.statement));
    if (has_plot(v)) {
      const LogLogPlot plot = plot_of_check(v, record.confidence);
      html += fmt::format("<div class=\"plot\">{}</div>\n", render_svg(plot, record_plot_style(plot))) +
              measurement_table(v, record.confidence);
    }
    if (!v.findings.empty()) {
      html += "<table class=\"findings\"><tr><th>subject</th><th>evidence</th></tr>\n";
      for (const Finding& f : v.findings)
        html += fmt::format("<tr class=\"fail\"><td>{}</td><td>{}</td></tr>\n", h(f.subject), h(f.evidence_text()));
      html += "</table>\n";
    }
    html += "</section>\n";
  }
  return html;
}

std::string stages_section(const CampaignRecord& record) {
  std::string html =
      "<h2>Stages</h2>\n<table class=\"stages\"><tr><th>stage</th><th>kind</th><th>status</th>"
      "<th>attempts</th><th>started</th><th>finished</th><th>rows</th><th>results</th><th>note</th></tr>\n";
  for (const RecordStage& s : record.stages)
    html += fmt::format("<tr{}><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td>"
                        "<td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>\n",
                        s.status == "completed" ? "" : " class=\"fail\"", h(s.name), h(s.kind), h(s.status), s.attempts,
                        h(s.started), h(s.finished), s.rows, path_markup(s.results), h(s.message));
  html += "</table>\n";
  for (const RecordStage& s : record.stages) {
    const std::vector<LogLogPlot> plots = stage_plots(s);
    if (plots.empty()) {
      html += fmt::format("<h3>Stage {}</h3>\n<p>{}</p>\n", h(s.name),
                          s.kind == "doctor" ? "It measures nothing: its inventory is below."
                                             : "No rows to plot: the stage left no results.");
      continue;
    }
    html += fmt::format("<h3>Stage {}: what it measured</h3>\n", h(s.name));
    for (const LogLogPlot& plot : plots)
      html += fmt::format("<div class=\"stage-plot\">{}</div>\n", render_svg(plot, record_plot_style(plot)));
  }
  return html;
}

// Facts the checks table does not state, from the stages' rows and the verdicts' bounds.
std::string findings_section(const CampaignRecord& record) {
  const std::vector<std::string> findings = record_findings(record);
  std::string html = "<h2>Findings</h2>\n";
  if (findings.empty()) return html + "<p>None: no stage left rows and no check was measured.</p>\n";
  html += "<ul class=\"findings\">\n";
  for (const std::string& finding : findings) html += fmt::format("<li>{}</li>\n", h(finding));
  return html + "</ul>\n";
}

// Hosts as columns while they fit on a page; beyond, one row per host.
// NOLINTNEXTLINE(readability-function-cognitive-complexity): one HTML table in two orientations (hosts as columns or rows) sharing the cell code
std::string inventory_section(const CampaignRecord& record) {
  std::string html = "<h2>Hosts (doctor's inventory)</h2>\n";
  if (record.hosts.empty())
    return html + "<p>No inventory: the plan has no doctor stage, or it did not complete.</p>\n";
  std::vector<std::string> attributes;
  for (const RecordHost& host : record.hosts)
    for (const auto& [key, value] : host.facts)
      if (std::find(attributes.begin(), attributes.end(), key) == attributes.end()) attributes.push_back(key);
  const auto value_of = [](const RecordHost& host, const std::string& key) {
    for (const auto& [k, v] : host.facts)
      if (k == key) return v;
    return std::string("-");
  };
  constexpr std::size_t hosts_as_columns = 4;
  if (record.hosts.size() <= hosts_as_columns) {
    html += "<table class=\"inventory\"><tr><th>attribute</th>";
    for (const RecordHost& host : record.hosts) html += fmt::format("<th>{}</th>", h(host.host));
    html += "</tr>\n";
    for (const std::string& key : attributes) {
      html += fmt::format("<tr><th>{}</th>", h(key));
      for (const RecordHost& host : record.hosts) html += fmt::format("<td>{}</td>", h(value_of(host, key)));
      html += "</tr>\n";
    }
  } else {
    html += "<table class=\"inventory\"><tr><th>host</th>";
    for (const std::string& key : attributes) html += fmt::format("<th>{}</th>", h(key));
    html += "</tr>\n";
    for (const RecordHost& host : record.hosts) {
      html += fmt::format("<tr><td>{}</td>", h(host.host));
      for (const std::string& key : attributes) html += fmt::format("<td>{}</td>", h(value_of(host, key)));
      html += "</tr>\n";
    }
  }
  html += "</table>\n<h3>What the doctor flagged, and hosts that differ</h3>\n";
  if (record.host_flags.empty()) return html + "<p>Nothing: every host looks alike and nothing was flagged.</p>\n";
  html += "<table class=\"flags\"><tr><th>severity</th><th>host</th><th>subject</th><th>message</th></tr>\n";
  for (const RecordFlag& f : record.host_flags)
    html += fmt::format("<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                        f.severity == "error" ? " class=\"fail\"" : "", h(f.severity),
                        h(f.host.empty() ? "(hosts differ)" : f.host), h(f.subject), h(f.message));
  return html + "</table>\n";
}

std::string drain_section(const CampaignRecord& record) {
  std::string html = "<h2>Drain list</h2>\n";
  const diagnosis::DrainList& drain = record.judgement.drain;
  if (drain.empty()) return html + "<p>No host is to be drained.</p>\n";
  html += "<table class=\"drain\"><tr><th>host</th><th>reason</th></tr>\n";
  for (const std::string& host : drain.hosts())
    html += fmt::format("<tr class=\"fail\"><td>{}</td><td>{}</td></tr>\n", h(host), h(drain.reason_of(host)));
  return html + "</table>\n";
}

std::string inputs_section(const CampaignRecord& record) {
  std::string html = "<h2>What the campaign was told</h2>\n";
  const auto file = [&](std::string_view role, const RecordFile& f) {
    html += fmt::format("<h3>{}: {}</h3>\n<p>SHA-256 <code>{}</code></p>\n<pre>{}</pre>\n", role, path_markup(f.path),
                        h(f.sha256), h(f.text));
  };
  file("Plan", record.plan);
  if (record.thresholds) file("Thresholds", *record.thresholds);
  if (!record.model_notes.empty()) {
    html += "<h3>Checks derived from the topology model</h3>\n<ul>\n";
    for (const std::string& note : record.model_notes) html += fmt::format("<li>{}</li>\n", h(note));
    html += "</ul>\n";
  }
  html += fmt::format(
      "<h3>How a verdict is decided</h3>\n<p>Every measurement (an op at a size, or a pair) was repeated; the "
      "checked value of each repetition is one sample. For n samples the k-th smallest lies above the true median "
      "with probability P(Binomial(n, 1/2) &le; k&minus;1) whatever the distribution, so the largest k with that "
      "probability at most &alpha; = {:.3g} gives a lower bound of the median that errs at most &alpha; of the time, "
      "and the k-th largest an upper one. A bandwidth passes when its lower bound reaches the limit and fails when "
      "its upper bound misses it (times the other way round); a check over m measurements fails each at &alpha;/m, "
      "so the whole check keeps &alpha;. Fewer than {} repetitions bound nothing at this &alpha;: such a check is "
      "INCONCLUSIVE.</p>\n",
      (1 - record.confidence) / 2, record.judgement.fewest_repetitions);
  return html;
}

std::string signoff_section(const CampaignRecord& record) {
  const auto party = [](std::string_view role, const std::string& who) {
    return fmt::format("<div><h3>{}: {}</h3><div class=\"field\"></div><span>name</span><div class=\"field\"></div>"
                       "<span>signature</span><div class=\"field\"></div><span>date</span></div>",
                       role, h(who));
  };
  // The words follow the verdict: only a PASS is accepted; a FAIL or an INCONCLUSIVE record is
  // signed as read, with what it leaves open.
  std::string statement;
  switch (record.judgement.decision) {
    case Decision::pass:
      statement = "The undersigned accept the system as recorded above, with the verdicts and the confidence stated "
                  "for each check.";
      break;
    case Decision::fail:
      statement = "The system did not pass: the undersigned confirm that the record above is what was measured and "
                  "judged, and that the checks marked FAIL must be remedied before the system can be accepted.";
      break;
    case Decision::inconclusive:
      statement = "The system is not yet accepted: the undersigned confirm that the record above is what was measured "
                  "and judged, and that the checks marked INCONCLUSIVE must be decided (measured again, with the "
                  "repetitions stated) before the system can be accepted.";
      break;
  }
  return "<section class=\"signoff-block\"><h2>Sign-off</h2>\n<p>" + statement + "</p>\n<div class=\"signoff\">" +
         party("For the supplier", "operator of the campaign") + party("For the customer", record.customer) +
         "</div></section>\n";
}

nlohmann::json files_json(const std::vector<std::pair<std::string, std::string>>& files) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& [path, sha256] : files) json.push_back({{"path", path}, {"sha256", sha256}});
  return json;
}

}  // namespace

std::size_t record_plot_count(const CampaignRecord& record) {
  return static_cast<std::size_t>(
      std::count_if(record.judgement.checks.begin(), record.judgement.checks.end(), has_plot));
}

std::string render_record_html(const CampaignRecord& record, Paper paper) {
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "img-src data:\">\n<title>Acceptance record: {} for {}</title>\n<style>{}{}</style>\n</head>\n<body>\n"
      "<h1>Acceptance record: {}</h1>\n",
      h(record.system), h(record.customer), style, page_style(paper, record), h(record.system));
  html += identity_section(record) + banner(record) + checks_table(record) + findings_section(record) +
          check_details(record);
  html += stages_section(record) + result_files_section(record) + inventory_section(record) + drain_section(record) +
          inputs_section(record);
  html += "<h2>Files</h2>\n<table class=\"files\">\n";
  for (const auto& [role, path] : record.files)
    html += fmt::format("<tr><th>{}</th><td><code>{}</code></td></tr>\n", h(role), path_markup(path));
  html += "</table>\n" + signoff_section(record);
  return html + "</body>\n</html>\n";
}

nlohmann::json record_summary_json(const CampaignRecord& record) {
  nlohmann::json stages = nlohmann::json::array();
  for (const RecordStage& s : record.stages)
    stages.push_back({{"name", s.name},
                      {"kind", s.kind},
                      {"status", s.status},
                      {"attempts", s.attempts},
                      {"started", s.started},
                      {"finished", s.finished},
                      {"rows", s.rows},
                      {"results", s.results},
                      {"message", s.message},
                      {"files", files_json(s.files)}});
  nlohmann::json drained = nlohmann::json::array();
  for (const std::string& host : record.judgement.drain.hosts())
    drained.push_back({{"host", host}, {"reason", record.judgement.drain.reason_of(host)}});
  nlohmann::json files = nlohmann::json::object();
  for (const auto& [role, path] : record.files) files[role] = path;
  const auto file = [](const RecordFile& f) { return nlohmann::json{{"path", f.path}, {"sha256", f.sha256}}; };
  return {{"schema", campaign_summary_schema},
          {"system", record.system},
          {"customer", record.customer},
          {"started_at", record.started_at},
          {"record_id", record.record_id},
          {"finished_at", record.finished_at.empty() ? nlohmann::json(nullptr) : nlohmann::json(record.finished_at)},
          {"written_at", record.written_at},
          {"tool_version", record.tool_version},
          {"git_revision", record.git_revision},
          {"plan", file(record.plan)},
          {"thresholds", record.thresholds ? file(*record.thresholds) : nlohmann::json(nullptr)},
          {"thresholds_when_measured_sha256", record.measured_thresholds_sha256
                                                  ? nlohmann::json(*record.measured_thresholds_sha256)
                                                  : nlohmann::json(nullptr)},
          {"model_notes", record.model_notes},
          {"confidence", record.confidence},
          {"verdict", diagnosis::name_of(record.judgement.decision)},
          {"stages", stages},
          {"checks", check_verdicts_json(record.judgement.checks)},
          {"drain_list", drained},
          {"files", files}};
}

std::string record_junit_xml(const CampaignRecord& record) {
  return check_verdicts_junit_xml(record.judgement.checks, "campaign", record.system);
}

}  // namespace fb
