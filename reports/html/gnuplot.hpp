#pragma once
// Plots drawn by gnuplot (its svg terminal), for embedding inline in the HTML report. gnuplot runs
// as a child process on a script file; nothing from the inputs reaches it unfiltered.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fb {

struct PlotSeries {
  std::string title;
  // (x, y); points with y <= 0 are left out, and with x <= 0 on a logarithmic x axis.
  std::vector<std::pair<double, double>> points;
  // Optional, one per point: the other edge of a shaded band around the line (the bandwidth at
  // the p99 time under the median's), in the series' colour.
  std::vector<double> band_edge;
};

// A dashed horizontal line over a size range: an acceptance threshold or the model's expectation.
struct ReferenceLine {
  std::string title;
  double x_from = 0;
  double x_to = 0;
  double y = 0;
};

// Size on a logarithmic x axis against a value: bandwidth on a linear axis (the plateau where
// acceptance is decided is then visibly flat or not), time on a logarithmic one.
struct LogLogPlot {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool x_is_bytes = true;  // label x ticks 1k, 1M, 1G (binary prefixes)
  std::vector<PlotSeries> series;
  bool y_log = true;
  std::vector<ReferenceLine> references;
  bool x_log = true;  // false: a linear x axis from 0 (time in a soak run)
  // A linear x axis' range when given, ticked at whole numbers (pairs numbered 1..n drawn from 0.5
  // to n + 0.5, so that the first and last are not on the frame); from 0 to what the data needs
  // otherwise.
  std::optional<std::pair<double, double>> x_range{};
};

// How a plot is laid out, beside what it shows. The report uses the defaults; the acceptance record
// draws on a smaller canvas (14 px text scaled to a printed page's text width stays larger: 720 x
// 420 px at A4's 180 mm prints it at 9.9 pt) with the legend above the plot, where it covers no
// curve and no axis label.
struct PlotStyle {
  int width_px = 960;
  int height_px = 500;
  bool legend_above = false;
  // Titles and legend entries longer than this many characters break at spaces onto more lines,
  // so that a long check name stays inside the canvas instead of running off it; 0: never.
  std::size_t wrap_chars = 0;
};

// `text` broken at spaces into lines of at most `wrap_chars` characters (a longer word is a line
// of its own); one line when `wrap_chars` is 0.
std::vector<std::string> wrapped_lines(std::string_view text, std::size_t wrap_chars);

// Text for a gnuplot single-quoted string: only letters, digits, space and . , : ; _ - + / ( ) [ ] = # %
// pass; every other byte becomes '?'. Single-quoted gnuplot strings interpret no escapes, and the
// allowed set holds neither a quote nor markup, so the SVG text gnuplot writes is inert too.
std::string gnuplot_safe_text(std::string_view text);

// The gnuplot script that draws `plot` as SVG on standard output (exposed for tests).
std::string gnuplot_script(const LogLogPlot& plot, const PlotStyle& style = {});

// Runs gnuplot and returns the <svg> element. Throws std::runtime_error when gnuplot is missing or
// fails, with its message.
std::string render_svg(const LogLogPlot& plot, const PlotStyle& style = {});

}  // namespace fb
