#pragma once
// Soak runs (`run --repeat`, `--duration`) repeat the sweep. These plots draw bandwidth against
// the time each repetition ran, per op and size and, for pair ops, per pair: a link that degrades
// for a while shows as a dip in one line, where the sweep's median would only read a little low.

#include "reports/html/gnuplot.hpp"
#include "results/result_row.hpp"

#include <span>
#include <string>
#include <vector>

namespace fb {

// Most sizes and pairs one plot draws: beyond that the lines cannot be told apart.
inline constexpr std::size_t soak_plot_max_sizes = 4;
inline constexpr std::size_t soak_plot_max_pairs = 8;

// For every op whose rows come from two repetitions or more: one plot of bandwidth (busbw where
// the rows have it, else algbw; the median over pairs and placements) per size against minutes
// since the first repetition, and for pair ops one plot of the largest size per pair, keeping the
// pairs whose bandwidth varies most. The x axis is the repetition number when a row has no
// timestamp (imported logs). `label` prefixes the titles ("run-a: ").
std::vector<LogLogPlot> bandwidth_over_time_plots(std::span<const ResultRow> rows, const std::string& label);

}  // namespace fb
