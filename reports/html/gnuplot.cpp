#include "html/gnuplot.hpp"

#include "html/svg_program.hpp"

#include <fmt/format.h>

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

std::string gnuplot_script(const LogLogPlot& plot) {
  // noenhanced: no ^ _ @ { } markup in labels; no 'mouse' option: the SVG carries no JavaScript.
  std::string script = "set terminal svg size 760,420 dynamic noenhanced font 'sans,11' background '#ffffff'\n";
  script += fmt::format("set title '{}'\nset xlabel '{}'\nset ylabel '{}'\n", gnuplot_safe_text(plot.title),
                        gnuplot_safe_text(plot.x_label), gnuplot_safe_text(plot.y_label));
  script += "set logscale y 10\nset grid xtics ytics mytics lc rgb '#dddddd'\nset key outside right top\n";
  // %b%B prints the mantissa and binary prefix of the value: 1k, 64k, 1M, 1G.
  script += plot.x_is_bytes ? "set logscale x 2\nset format x '%.0b%B'\nset xtics 4\n" : "set logscale x 10\n";
  std::vector<std::string> plotted;
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    std::string block;
    for (const auto& [x, y] : plot.series[i].points)
      if (x > 0 && y > 0) block += fmt::format("{:.9g} {:.9g}\n", x, y);
    if (block.empty()) continue;
    script += fmt::format("$series{} << EOD\n{}EOD\n", i, block);
    plotted.push_back(fmt::format("$series{} using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 title '{}'", i,
                                  gnuplot_safe_text(plot.series[i].title)));
  }
  if (plotted.empty()) {
    // An empty frame still says that the op had nothing plottable, instead of a missing figure.
    script += "set xrange [1:1024]\nset yrange [1:10]\nunset key\n"
              "set label 'no positive values to plot' at graph 0.5,0.5 center\nplot 1/0 notitle\n";
    return script;
  }
  script += "plot ";
  for (std::size_t i = 0; i < plotted.size(); ++i) script += (i ? ", \\\n  " : "") + plotted[i];
  return script + "\n";
}

std::string render_svg(const LogLogPlot& plot) {
  return draw_svg("gnuplot", {}, gnuplot_script(plot), fmt::format("'{}'", plot.title), "gnuplot-nox");
}

}  // namespace fb
