#include "reports/html/trend_page.hpp"

#include "reports/html/gnuplot.hpp"
#include "reports/html/html_escape.hpp"

#include <fmt/format.h>

namespace fb {
namespace {

// Runs are numbered from 1 on the x axis: dates of runs are uneven, their order is what matters.
LogLogPlot trend_plot(const diagnosis::RunSeries& series, const diagnosis::SeriesDrift& drift) {
  LogLogPlot plot{.title = series.subject,
                  .x_label = "run (oldest first)",
                  .y_label = fmt::format("{} ({})", series.value_name, series.unit),
                  .x_is_bytes = false,
                  .series = {},
                  .y_log = false,
                  .references = {},
                  .x_log = false};
  PlotSeries runs{.title = "each run (median of its rows)", .points = {}, .band_edge = {}};
  for (std::size_t i = 0; i < series.values.size(); ++i)
    runs.points.emplace_back(static_cast<double>(i + 1), series.values[i]);
  plot.series.push_back(std::move(runs));
  for (const diagnosis::DriftChange& change : drift.changes) {
    PlotSeries changed{.title = fmt::format("change: runs {} to {} ({:.3f} x baseline){}", change.began + 1,
                                            change.flagged + 1, change.ratio(),
                                            change.cleared ? fmt::format(", cleared at run {}", *change.cleared + 1)
                                                           : std::string()),
                       .points = {},
                       .band_edge = {}};
    for (std::size_t i = change.began; i <= change.flagged; ++i)
      changed.points.emplace_back(static_cast<double>(i + 1), series.values[i]);
    plot.series.push_back(std::move(changed));
    plot.references.push_back({.title = "baseline (median)",
                               .x_from = 1,
                               .x_to = static_cast<double>(change.flagged + 1),
                               .y = change.baseline.median});
  }
  if (drift.changes.empty() && drift.baseline_median > 0)
    plot.references.push_back({.title = "baseline (median)",
                               .x_from = 1,
                               .x_to = static_cast<double>(series.values.size()),
                               .y = drift.baseline_median});
  return plot;
}

}  // namespace

std::string render_trend_page(const diagnosis::RunSeries& series, const diagnosis::SeriesDrift& drift) {
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>fabricbench history: {0}</title>\n"
      "<style>body{{font-family:sans-serif;margin:2em;max-width:70em}}table{{border-collapse:collapse}}"
      "td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}td:first-child,td:nth-child(2){{text-align:"
      "left}}.worse{{color:#b00}}</style></head><body>\n<h1>{0}</h1>\n",
      escape_markup(series.subject));
  if (drift.open_change)
    html += fmt::format("<p class=\"worse\"><b>Drifted:</b> {}</p>\n", escape_markup(drift.evidence));
  else
    html +=
        fmt::format("<p>{} runs; {} change{} found; the latest run is {:.3f} x its baseline.</p>\n",
                    series.values.size(), drift.changes.size(), drift.changes.size() == 1 ? "" : "s",
                    series.values.empty() || drift.baseline_median <= 0 ? 0.0
                                                                        : series.values.back() / drift.baseline_median);
  html += render_svg(trend_plot(series, drift));
  html += fmt::format("\n<table><tr><th>#</th><th>run</th><th>start</th><th>{} ({})</th><th>drift</th></tr>\n",
                      escape_markup(series.value_name), escape_markup(series.unit));
  for (std::size_t i = 0; i < series.values.size(); ++i) {
    const std::string mark = diagnosis::drift_marks(drift, i);
    html += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.4g}</td><td>{}</td></tr>\n", i + 1,
                        escape_markup(series.run_ids[i]), escape_markup(series.start_times[i]), series.values[i], mark);
  }
  return html + "</table>\n</body></html>\n";
}

}  // namespace fb
