#include "reports/html/gnuplot.hpp"

#include "common/sizes.hpp"
#include "reports/html/svg_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace fb {

std::string gnuplot_safe_text(std::string_view text) {
  std::string safe;
  for (const char c : text) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                         std::string_view(" .,:;_-+/()[]=#%").find(c) != std::string_view::npos;
    safe += allowed ? c : '?';
  }
  return safe;
}

std::vector<std::string> wrapped_lines(std::string_view text, std::size_t wrap_chars) {
  if (wrap_chars == 0 || text.size() <= wrap_chars) return {std::string(text)};
  std::vector<std::string> lines(1);
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t space = text.find(' ', at);
    const std::string_view word =
        text.substr(at, space == std::string_view::npos ? std::string_view::npos : space - at);
    if (!lines.back().empty() && lines.back().size() + 1 + word.size() > wrap_chars) lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + std::string(word);
    if (space == std::string_view::npos) break;
    at = space + 1;
  }
  return lines;
}

namespace {

// A gnuplot string expression of `text`: single-quoted safe text, its wrapped lines joined by a
// double-quoted newline (the only escape gnuplot reads, and only there).
std::string quoted(std::string_view text, std::size_t wrap_chars) {
  std::string expression;
  for (const std::string& line : wrapped_lines(text, wrap_chars))
    expression += (expression.empty() ? "'" : ".\"\\n\".'") + gnuplot_safe_text(line) + "'";
  return expression;
}

// Ticks every factor of `step` along a log2 size axis, few enough that their labels never touch at
// the plot's width: a 8 B - 8 GiB sweep gets 1, 1K, 1M, 1G.
double size_tick_step(double x_min, double x_max) {
  const double doublings = std::log2(x_max / x_min);
  if (doublings <= 8) return 2;
  if (doublings <= 16) return 4;
  if (doublings <= 24) return 16;
  return 1024;
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one gnuplot script, its settings in the order gnuplot reads them; each branch is one optional setting
std::string gnuplot_script(const LogLogPlot& plot, const PlotStyle& style) {
  // noenhanced: no ^ _ @ { } markup in labels; no 'mouse' option: the SVG carries no JavaScript.
  // The report's 960 x 500 at 100% zoom with 14 px text (PlotStyle); the legend inside at the top
  // left, where small sizes leave bandwidth and time low, in an opaque box so no line crosses its
  // text, or above the plot for the record.
  std::string script =
      fmt::format("set terminal svg size {},{} dynamic noenhanced font 'sans,14' background '#ffffff'\n",
                  style.width_px, style.height_px);
  script += fmt::format("set title {}\nset xlabel '{}'\nset ylabel '{}'\n", quoted(plot.title, style.wrap_chars),
                        gnuplot_safe_text(plot.x_label), gnuplot_safe_text(plot.y_label));
  script += "set grid xtics ytics mxtics mytics lc rgb '#dddddd'\n";
  script += style.legend_above ? "set key outside top center vertical Left reverse box\n"
                               : "set key inside top left Left reverse box opaque\n";
  script += plot.y_log ? "set logscale y 10\n" : "set yrange [0:*]\n";
  const auto plotted_point = [&plot](double x, double y) { return y > 0 && (x > 0 || (!plot.x_log && x >= 0)); };
  double x_min = 0, x_max = 0;
  for (const PlotSeries& series : plot.series)
    for (const auto& [x, y] : series.points)
      if (x > 0 && y > 0) {
        x_min = x_min == 0 ? x : std::min(x_min, x);
        x_max = std::max(x_max, x);
      }
  // %b%B prints the mantissa and binary prefix of the value: 1k, 64k, 1M, 1G.
  if (plot.x_is_bytes) {
    // Ticks placed and labelled here (1K, 64K, 1M, 1G), at powers of the step: gnuplot's own
    // placement on a log2 axis starts at the smallest size and labels 8ki, 124ki.
    script += "set logscale x 2\n";
    if (x_min > 0) {
      const double step = size_tick_step(x_min, x_max);
      std::string tics;
      for (double tick = 1; tick <= x_max * 4; tick *= step)
        if (tick >= x_min / 4)
          tics += fmt::format("{}'{}' {:.0f}", tics.empty() ? "" : ", ",
                              format_size_bytes(static_cast<std::uint64_t>(tick)), tick);
      script += "set xtics (" + tics + ")\nset mxtics 2\n";
    }
  } else if (plot.x_log) {
    script += "set logscale x 10\n";
  } else if (plot.x_range) {
    // Whole-numbered ticks (pairs are counted), at most 16 of them.
    const double span = plot.x_range->second - plot.x_range->first;
    script += fmt::format("set xrange [{:.15g}:{:.15g}]\nset xtics {:.15g}\n", plot.x_range->first,
                          plot.x_range->second, std::max(1.0, std::ceil(span / 16)));
  } else {
    script += "set xrange [0:*]\n";
  }
  // One size alone is a point in the middle of a readable range, not a dot in an empty box.
  if (plot.x_log && x_min > 0 && x_min == x_max)
    script += fmt::format("set xrange [{:.15g}:{:.15g}]\n", x_min / 4, x_max * 4);
  std::vector<std::string> plotted;
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    const PlotSeries& series = plot.series[i];
    std::string block, band;
    for (std::size_t p = 0; p < series.points.size(); ++p) {
      const auto [x, y] = series.points[p];
      if (!plotted_point(x, y)) continue;
      // Sizes to the byte: 8 GiB is 8589934592, not 8.58993459e+09.
      block += fmt::format("{:.15g} {:.9g}\n", x, y);
      if (p < series.band_edge.size() && series.band_edge[p] > 0)
        band += fmt::format("{:.15g} {:.9g} {:.9g}\n", x, std::min(y, series.band_edge[p]),
                            std::max(y, series.band_edge[p]));
    }
    if (block.empty()) continue;
    if (!band.empty()) {
      script += fmt::format("$band{} << EOD\n{}EOD\n", i, band);
      plotted.push_back(fmt::format("$band{} using 1:2:3 with filledcurves lt {} fs transparent solid 0.2 noborder "
                                    "title {}",
                                    i, i + 1, quoted(series.title + " p99 band", style.wrap_chars)));
    }
    script += fmt::format("$series{} << EOD\n{}EOD\n", i, block);
    plotted.push_back(fmt::format("$series{} using 1:2 with linespoints lt {} pt 7 ps 0.6 lw 2 title {}", i, i + 1,
                                  quoted(series.title, style.wrap_chars)));
  }
  if (plotted.empty()) {
    // An empty frame still says that the op had nothing plottable, instead of a missing figure.
    script += "set xrange [1:1024]\nset yrange [1:10]\nunset key\n"
              "set label 'no positive values to plot' at graph 0.5,0.5 center\nplot 1/0 notitle\n";
    return script;
  }
  for (std::size_t i = 0; i < plot.references.size(); ++i) {
    const ReferenceLine& line = plot.references[i];
    if (line.y <= 0 || line.x_from <= 0 || line.x_to < line.x_from) continue;
    script += fmt::format("$reference{} << EOD\n{:.15g} {:.9g}\n{:.15g} {:.9g}\nEOD\n", i, line.x_from, line.y,
                          line.x_to, line.y);
    plotted.push_back(fmt::format("$reference{} using 1:2 with lines dt 2 lw 2.5 lc rgb '{}' title {}", i,
                                  i == 0 ? "#c00000" : "#555555", quoted(line.title, style.wrap_chars)));
  }
  script += "plot ";
  for (std::size_t i = 0; i < plotted.size(); ++i) script += (i ? ", \\\n  " : "") + plotted[i];
  return script + "\n";
}

std::string render_svg(const LogLogPlot& plot, const PlotStyle& style) {
  return draw_svg("gnuplot", {}, gnuplot_script(plot, style), fmt::format("'{}'", plot.title), "gnuplot-nox");
}

}  // namespace fb
