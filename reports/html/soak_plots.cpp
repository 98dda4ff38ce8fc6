#include "reports/html/soak_plots.hpp"

#include "common/robust_statistics.hpp"
#include "common/sizes.hpp"
#include "results/repetition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <set>

namespace fb {
namespace {

// "2026-11-23T13:45:12Z" (results/ writes whole seconds in UTC) -> seconds since the epoch.
std::optional<double> utc_seconds(const std::string& timestamp) {
  std::tm fields{};
  char zone = 0;
  if (std::sscanf(timestamp.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &fields.tm_year, &fields.tm_mon, &fields.tm_mday,
                  &fields.tm_hour, &fields.tm_min, &fields.tm_sec, &zone) != 7 ||
      zone != 'Z')
    return std::nullopt;
  fields.tm_year -= 1900;
  fields.tm_mon -= 1;
  return static_cast<double>(::timegm(&fields));
}

double bandwidth_of(const ResultRow& row) { return row.busbw_gbps ? *row.busbw_gbps : row.algbw_gbps; }

// Rows of one pair of endpoints: point-to-point and pair-pattern rows, and device copies.
bool is_pair_row(const ResultRow& row) { return row.src_rank && row.dst_rank; }

std::string pair_label(const ResultRow& row) {
  if (!row.src_device.empty()) return fmt::format("{} {} -> {}", row.src_host, row.src_device, row.dst_device);
  if (!row.src_host.empty() && !row.dst_host.empty() && row.src_host != row.dst_host)
    return fmt::format("{} -> {}", row.src_host, row.dst_host);
  return fmt::format("rank {} -> {}", *row.src_rank, *row.dst_rank);
}

// Where on the time axis a row goes: minutes since `start`, or its repetition when any row of the
// op lacks a timestamp (counted from 1, as the findings name it).
struct TimeAxis {
  bool minutes = true;
  double start_s = 0;

  double x_of(const ResultRow& row) const {
    return minutes ? (*utc_seconds(row.timestamp) - start_s) / 60.0
                   : static_cast<double>(repetition_number(*row.repetition));
  }
};

TimeAxis time_axis_for(std::span<const ResultRow* const> rows) {
  TimeAxis axis;
  std::optional<double> start;
  for (const ResultRow* row : rows) {
    const std::optional<double> at = utc_seconds(row->timestamp);
    if (!at) return {false, 0};
    start = start ? std::min(*start, *at) : *at;
  }
  axis.start_s = start.value_or(0);
  return axis;
}

// Sizes to draw: all of them when few, else evenly spread from the smallest to the largest.
std::vector<std::uint64_t> sizes_to_draw(const std::set<std::uint64_t>& sizes) {
  const std::vector<std::uint64_t> all(sizes.begin(), sizes.end());
  if (all.size() <= soak_plot_max_sizes) return all;
  std::vector<std::uint64_t> chosen;
  for (std::size_t i = 0; i < soak_plot_max_sizes; ++i)
    chosen.push_back(all[i * (all.size() - 1) / (soak_plot_max_sizes - 1)]);
  return chosen;
}

// One point per repetition: the median bandwidth of the rows, at the earliest time among them.
PlotSeries series_over_repetitions(std::string title, std::span<const ResultRow* const> rows, const TimeAxis& axis) {
  std::map<int, std::vector<double>> bandwidth_by_repetition;
  std::map<int, double> x_by_repetition;
  for (const ResultRow* row : rows) {
    bandwidth_by_repetition[*row->repetition].push_back(bandwidth_of(*row));
    const double x = axis.x_of(*row);
    const auto [at, inserted] = x_by_repetition.emplace(*row->repetition, x);
    if (!inserted) at->second = std::min(at->second, x);
  }
  PlotSeries series{std::move(title), {}, {}};
  for (const auto& [repetition, values] : bandwidth_by_repetition)
    series.points.emplace_back(x_by_repetition[repetition], median_of(values));
  return series;
}

LogLogPlot time_plot(std::string title, bool busbw, const TimeAxis& axis) {
  LogLogPlot plot;
  plot.title = std::move(title);
  plot.x_label = axis.minutes ? "minutes since the first repetition" : "repetition";
  plot.y_label = busbw ? "busbw (GB/s)" : "algbw (GB/s)";
  plot.x_is_bytes = false;
  plot.x_log = false;
  plot.y_log = false;
  return plot;
}

// How much a pair's bandwidth varies over the repetitions: its slowest against its median, so the
// pair that dipped sorts first.
double steadiness(std::span<const ResultRow* const> rows) {
  std::vector<double> values;
  for (const ResultRow* row : rows) values.push_back(bandwidth_of(*row));
  const double median = median_of(values);
  return median > 0 ? *std::ranges::min_element(values) / median : 1.0;
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one plot per op with a line per size over repetitions
std::vector<LogLogPlot> bandwidth_over_time_plots(std::span<const ResultRow> rows, const std::string& label) {
  std::map<std::string, std::vector<const ResultRow*>> rows_by_op;
  for (const ResultRow& row : rows)
    if (row.repetition) rows_by_op[row.op].push_back(&row);
  const std::string prefix = label.empty() ? "" : label + ": ";
  std::vector<LogLogPlot> plots;
  for (const auto& [op, op_rows] : rows_by_op) {
    std::set<int> repetitions;
    std::set<std::uint64_t> sizes;
    bool busbw = false;
    for (const ResultRow* row : op_rows) {
      repetitions.insert(*row->repetition);
      sizes.insert(row->bytes);
      busbw = busbw || row->busbw_gbps.has_value();
    }
    if (repetitions.size() < 2) continue;
    const TimeAxis axis = time_axis_for(op_rows);

    LogLogPlot by_size = time_plot(fmt::format("{}{} bandwidth over time", prefix, op), busbw, axis);
    for (const std::uint64_t bytes : sizes_to_draw(sizes)) {
      std::vector<const ResultRow*> size_rows;
      for (const ResultRow* row : op_rows)
        if (row->bytes == bytes) size_rows.push_back(row);
      by_size.series.push_back(series_over_repetitions(format_size_bytes(bytes), size_rows, axis));
    }
    plots.push_back(std::move(by_size));

    std::map<std::string, std::vector<const ResultRow*>> rows_by_pair;
    for (const ResultRow* row : op_rows)
      if (row->bytes == *sizes.rbegin() && is_pair_row(*row)) rows_by_pair[pair_label(*row)].push_back(row);
    if (rows_by_pair.empty()) continue;
    std::vector<std::pair<double, std::string>> pairs_by_steadiness;
    for (const auto& [pair, pair_rows] : rows_by_pair) pairs_by_steadiness.emplace_back(steadiness(pair_rows), pair);
    std::ranges::sort(pairs_by_steadiness);
    const std::size_t drawn = std::min(pairs_by_steadiness.size(), soak_plot_max_pairs);
    LogLogPlot by_pair =
        time_plot(drawn < pairs_by_steadiness.size()
                      ? fmt::format("{}{} at {} per pair (the {} least steady of {})", prefix, op,
                                    format_size_bytes(*sizes.rbegin()), drawn, pairs_by_steadiness.size())
                      : fmt::format("{}{} at {} per pair", prefix, op, format_size_bytes(*sizes.rbegin())),
                  busbw, axis);
    for (std::size_t i = 0; i < drawn; ++i) {
      const std::string& pair = pairs_by_steadiness[i].second;
      by_pair.series.push_back(series_over_repetitions(pair, rows_by_pair[pair], axis));
    }
    plots.push_back(std::move(by_pair));
  }
  return plots;
}

}  // namespace fb
