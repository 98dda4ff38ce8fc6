// Designs side by side, rendered (design_report.hpp).

#include "reports/compare/design_report.hpp"

#include "common/sizes.hpp"
#include "reports/html/gnuplot.hpp"
#include "reports/html/html_escape.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace fb {
namespace {

using topo::DesignComparison;
using topo::DesignPoint;

// The points of one op, in order of size then design.
std::vector<const DesignPoint*> points_of(const DesignComparison& comparison, std::string_view op) {
  std::vector<const DesignPoint*> points;
  for (const DesignPoint& point : comparison.points) {
    if (point.op->name == op) points.push_back(&point);
  }
  return points;
}

std::vector<std::string_view> ops_of(const DesignComparison& comparison) {
  std::vector<std::string_view> ops;
  for (const DesignPoint& point : comparison.points) {
    if (ops.empty() || ops.back() != point.op->name) ops.push_back(point.op->name);
  }
  return ops;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string h(std::string_view text) { return escape_markup(text); }

constexpr std::string_view style =
    "body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}"
    "td.words{text-align:left}.answer{font-size:1.1em}.plot svg{width:100%;height:auto}";

}  // namespace

void print_design_comparison(std::ostream& out, const DesignComparison& comparison) {
  fmt::print(out, "# topo compare: {} designs ({}), the model's predictions\n", comparison.designs.size(),
             fmt::join(comparison.designs, ", "));
  for (const std::string& line : comparison.answer) fmt::print(out, "{}\n", line);
  for (const std::string_view op : ops_of(comparison)) {
    fmt::print(out,
               "\n# {}: busbw GB/s (time us) per design; ratio = design / the best at that size; ~: its 80% "
               "interval overlaps the best's (or, for the best, another's): not told apart\n",
               op);
    fmt::print(out, "{:>10}", "size");
    for (const std::string& design : comparison.designs) fmt::print(out, " {:>28}", design);
    fmt::print(out, "\n");
    const std::vector<const DesignPoint*> points = points_of(comparison, op);
    for (std::size_t i = 0; i < points.size(); i += comparison.designs.size()) {
      fmt::print(out, "{:>10}", format_size_bytes(points[i]->bytes));
      for (std::size_t d = 0; d < comparison.designs.size(); ++d) {
        const DesignPoint& p = *points[i + d];
        fmt::print(out, " {:>28}",
                   fmt::format("{:.1f} ({:.1f}) {:.2f}x{}", p.busbw_gbps, p.time_us, p.ratio_to_best,
                               p.cannot_tell_apart ? "~" : ""));
      }
      fmt::print(out, "\n");
    }
  }
  if (!comparison.costs.empty() && comparison.costs.front()) {
    fmt::print(out, "\n# cost of each design (priced parts: {})\n", fmt::join(comparison.priced_parts, ", "));
    for (std::size_t d = 0; d < comparison.designs.size(); ++d) {
      const topo::DesignParts& parts = comparison.parts[d];
      fmt::print(out, "{}: {:.0f} ({} hosts, {} GPUs, {} NICs, {} switches, {} cables)\n", comparison.designs[d],
                 *comparison.costs[d], parts.hosts, parts.gpus, parts.nics, parts.switches, parts.cables);
    }
  }
  for (const std::string& warning : comparison.warnings) fmt::print(out, "# {}\n", warning);
}

std::string design_comparison_csv(const DesignComparison& comparison) {
  std::string csv =
      "op,bytes,design,time_us,busbw_gbps,ratio_to_best,algorithm,protocol,limit,limit_words,cost_per_gbps,"
      "busbw_low_gbps,busbw_high_gbps,cannot_tell_apart\n";
  for (const DesignPoint& p : comparison.points) {
    csv += fmt::format("{},{},{},{:.3f},{:.3f},{:.4f},{},{},{},{},{},{:.3f},{:.3f},{}\n", p.op->name, p.bytes,
                       csv_field(comparison.designs[p.design]), p.time_us, p.busbw_gbps, p.ratio_to_best, p.algorithm,
                       p.protocol, csv_field(p.limit), csv_field(p.limit_words),
                       p.cost_per_gbps ? fmt::format("{:.3f}", *p.cost_per_gbps) : std::string(), p.busbw_low_gbps,
                       p.busbw_high_gbps, p.cannot_tell_apart);
  }
  return csv;
}

std::string design_comparison_json(const DesignComparison& comparison) {
  nlohmann::json json{{"answer", comparison.answer}, {"warnings", comparison.warnings}};
  json["designs"] = nlohmann::json::array();
  for (std::size_t d = 0; d < comparison.designs.size(); ++d) {
    const topo::DesignParts& parts = comparison.parts[d];
    nlohmann::json design{{"name", comparison.designs[d]},
                          {"parts",
                           {{"hosts", parts.hosts},
                            {"gpus", parts.gpus},
                            {"nics", parts.nics},
                            {"switches", parts.switches},
                            {"cables", parts.cables}}}};
    if (comparison.costs[d]) design["cost"] = *comparison.costs[d];
    json["designs"].push_back(design);
  }
  json["points"] = nlohmann::json::array();
  for (const DesignPoint& p : comparison.points) {
    nlohmann::json point{{"op", p.op->name},
                         {"bytes", p.bytes},
                         {"design", comparison.designs[p.design]},
                         {"time_us", p.time_us},
                         {"busbw_gbps", p.busbw_gbps},
                         {"busbw_low_gbps", p.busbw_low_gbps},
                         {"busbw_high_gbps", p.busbw_high_gbps},
                         {"cannot_tell_apart", p.cannot_tell_apart},
                         {"ratio_to_best", p.ratio_to_best},
                         {"algorithm", p.algorithm},
                         {"protocol", p.protocol},
                         {"limit", p.limit},
                         {"limit_words", p.limit_words}};
    if (p.cost_per_gbps) point["cost_per_gbps"] = *p.cost_per_gbps;
    json["points"].push_back(point);
  }
  return json.dump(2) + "\n";
}

std::string design_comparison_html(const DesignComparison& comparison) {
  std::string names;
  for (const std::string& design : comparison.designs) names += (names.empty() ? "" : " vs ") + design;
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      // No script, no external loads: the page opens from disk and cannot run input text.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "img-src data:\">\n<title>fabricbench design comparison: {}</title>\n<style>{}</style>\n</head>\n<body>\n"
      "<h1>Designs side by side: {}</h1>\n<p>Predicted by fabricbench's collective model (docs/model.md), not "
      "measured.</p>\n<section id=\"answer\"><h2>Answer</h2>\n",
      h(names), style, h(names));
  for (const std::string& line : comparison.answer) html += fmt::format("<p class=\"answer\">{}</p>\n", h(line));
  html += "</section>\n";
  for (const std::string_view op : ops_of(comparison)) {
    const std::vector<const DesignPoint*> points = points_of(comparison, op);
    LogLogPlot plot;
    plot.title = fmt::format("{}: predicted busbw per design", op);
    plot.x_label = "size (bytes)";
    plot.y_label = "busbw (GB/s)";
    plot.y_log = false;
    for (std::size_t d = 0; d < comparison.designs.size(); ++d) {
      PlotSeries series;
      series.title = comparison.designs[d];
      for (std::size_t i = d; i < points.size(); i += comparison.designs.size()) {
        series.points.emplace_back(static_cast<double>(points[i]->bytes), points[i]->busbw_gbps);
      }
      plot.series.push_back(std::move(series));
    }
    html += fmt::format("<section class=\"op\"><h2>{}</h2>\n<div class=\"plot\">{}</div>\n", h(op), render_svg(plot));
    html +=
        "<table class=\"designs\">\n<tr><th>size</th><th>design</th><th>busbw GB/s</th><th>80% interval</th>"
        "<th>time us</th><th>ratio to best</th><th>algorithm</th><th>cost per GB/s</th><th>limiting link</th></tr>\n";
    for (const DesignPoint* p : points) {
      html += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.1f}</td><td>{:.1f}-{:.1f}{}</td><td>{:.1f}</td><td>{:.2f}"
                          "</td><td>{} {}</td><td>{}</td><td class=\"words\">{}</td></tr>\n",
                          format_size_bytes(p->bytes), h(comparison.designs[p->design]), p->busbw_gbps,
                          p->busbw_low_gbps, p->busbw_high_gbps, p->cannot_tell_apart ? " (not told apart)" : "",
                          p->time_us, p->ratio_to_best, h(p->algorithm), h(p->protocol),
                          p->cost_per_gbps ? fmt::format("{:.0f}", *p->cost_per_gbps) : std::string("-"),
                          h(p->limit_words));
    }
    html += "</table>\n</section>\n";
  }
  if (!comparison.warnings.empty()) {
    html += "<section id=\"assumptions\"><h2>What the model assumed</h2>\n<ul>\n";
    for (const std::string& warning : comparison.warnings) html += fmt::format("<li>{}</li>\n", h(warning));
    html += "</ul>\n</section>\n";
  }
  return html + "</body>\n</html>\n";
}

}  // namespace fb
