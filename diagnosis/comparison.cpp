#include "diagnosis/comparison.hpp"

#include "common/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace fb::diagnosis {
namespace {

using MatchKey = std::tuple<std::string, std::string, std::string, bool, int, std::uint64_t, std::optional<int>,
                            std::optional<int>, std::string, std::string>;

MatchKey key_of(const ResultRow& row) {
  // Ranks identify endpoints across clusters whose host names differ; hosts only stand in for
  // rows that carry no ranks.
  const bool by_rank = row.src_rank.has_value();
  return {row.op,
          row.dtype,
          row.redop,
          row.in_place,
          row.nranks,
          row.bytes,
          row.src_rank,
          row.dst_rank,
          by_rank ? std::string() : row.src_host,
          by_rank ? std::string() : row.dst_host};
}

// One side's value for a key: the row (its median time the median over repetitions when it has
// several), how many repetitions it rests on and their spread.
struct SideValue {
  ResultRow row;
  std::size_t repetitions = 1;
  std::optional<double> spread;
};

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

SideValue value_of(const std::vector<const ResultRow*>& rows, std::size_t& duplicates) {
  const bool repeated =
      rows.size() > 1 && std::all_of(rows.begin(), rows.end(), [](const ResultRow* r) { return r->repetition; });
  if (!repeated) {
    const ResultRow* best = rows.front();
    for (const ResultRow* row : rows)
      if (row->time_median_us < best->time_median_us) best = row;
    duplicates += rows.size() - 1;
    return {*best, 1, run_to_run_spread(*best)};
  }
  std::vector<double> times;
  std::vector<double> busbw;
  for (const ResultRow* row : rows) {
    times.push_back(row->time_median_us);
    if (row->busbw_gbps) busbw.push_back(*row->busbw_gbps);
  }
  SideValue value{*rows.front(), rows.size(), repetition_spread(times)};
  value.row.time_median_us = median_of(times);
  if (busbw.size() == rows.size()) value.row.busbw_gbps = median_of(busbw);
  return value;
}

std::map<MatchKey, SideValue> index_sides(std::span<const ResultRow> rows, std::size_t& duplicates) {
  std::map<MatchKey, std::vector<const ResultRow*>> grouped;
  for (const ResultRow& row : rows) grouped[key_of(row)].push_back(&row);
  std::map<MatchKey, SideValue> index;
  for (const auto& [key, group] : grouped) index.emplace(key, value_of(group, duplicates));
  return index;
}

}  // namespace

std::string_view name_of(Significance significance) {
  switch (significance) {
    case Significance::within_spread: return "within spread";
    case Significance::beyond_spread: return "beyond spread";
    case Significance::within_default_bound: return "spread not available, within default bound";
    case Significance::beyond_default_bound: return "spread not available, beyond default bound";
  }
  return "unknown";
}

bool spread_recorded(Significance significance) {
  return significance == Significance::within_spread || significance == Significance::beyond_spread;
}

std::optional<double> run_to_run_spread(const ResultRow& row) {
  const bool cv_reported = reports_statistic(row, "time_cv");
  const bool tail_reported = reports_statistic(row, "time_p99_us");
  if (!cv_reported && !tail_reported) return std::nullopt;
  if (row.time_cv == 0 && row.time_min_us == row.time_max_us) return std::nullopt;
  const double tail = tail_reported && row.time_median_us > 0 ? row.time_p99_us / row.time_median_us - 1 : 0;
  return std::max(cv_reported ? row.time_cv : 0.0, std::max(tail, 0.0));
}

std::optional<double> repetition_spread(std::vector<double> median_times_us) {
  const std::size_t n = median_times_us.size();
  if (n < 2) return std::nullopt;
  std::sort(median_times_us.begin(), median_times_us.end());
  const double median = median_of(median_times_us);
  if (median <= 0) return std::nullopt;
  if (n < 4) return (median_times_us.back() - median_times_us.front()) / median;
  // Quartiles by linear interpolation between order statistics.
  const auto quantile = [&](double p) {
    const double at = p * static_cast<double>(n - 1);
    const auto below = static_cast<std::size_t>(at);
    const double above = below + 1 < n ? median_times_us[below + 1] : median_times_us[below];
    return median_times_us[below] + (at - static_cast<double>(below)) * (above - median_times_us[below]);
  };
  return (quantile(0.75) - quantile(0.25)) / median;
}

Comparison compare_results(std::span<const ResultRow> a, std::span<const ResultRow> b) {
  Comparison comparison;
  const auto index_a = index_sides(a, comparison.duplicates_merged);
  const auto index_b = index_sides(b, comparison.duplicates_merged);
  std::map<std::string, OpComparison> by_op;
  for (const auto& [key, side_a] : index_a) {
    const ResultRow* row_a = &side_a.row;
    const auto match = index_b.find(key);
    if (match == index_b.end() || row_a->time_median_us <= 0 || match->second.row.time_median_us <= 0) {
      ++comparison.only_in_a;
      continue;
    }
    const SideValue& side_b = match->second;
    ComparedRow compared{*row_a, side_b.row, side_b.row.time_median_us / row_a->time_median_us,
                         default_noise_bound_fraction, Significance::within_default_bound};
    compared.repetitions_a = side_a.repetitions;
    compared.repetitions_b = side_b.repetitions;
    const std::optional<double> spread_a = side_a.spread;
    const std::optional<double> spread_b = side_b.spread;
    const bool recorded = spread_a && spread_b;
    if (recorded) compared.spread_fraction = *spread_a + *spread_b;
    const double bound = 1 + compared.spread_fraction;
    const double ratio = compared.time_ratio_b_over_a;
    const bool beyond = ratio > bound || ratio < 1 / bound;
    compared.significance = recorded
                                ? (beyond ? Significance::beyond_spread : Significance::within_spread)
                                : (beyond ? Significance::beyond_default_bound : Significance::within_default_bound);
    compared.regression = is_regression(compared);
    compared.too_noisy = too_noisy_to_compare(compared);
    OpComparison& op = by_op[row_a->op];
    op.op = row_a->op;
    op.regressions += compared.regression;
    op.too_noisy += compared.too_noisy;
    op.rows.push_back(std::move(compared));
  }
  for (const auto& [key, row_b] : index_b)
    if (!index_a.contains(key)) ++comparison.only_in_b;
  for (auto& [name, op] : by_op) {
    // The map order of keys is op, dtype, redop, placement, ranks, size: rows come grouped by
    // placement with ascending sizes, as the tables and plots want them.
    double log_sum = 0;
    for (const ComparedRow& row : op.rows) log_sum += std::log(row.time_ratio_b_over_a);
    op.geomean_time_ratio_b_over_a = std::exp(log_sum / static_cast<double>(op.rows.size()));
    comparison.regressions += op.regressions;
    comparison.too_noisy += op.too_noisy;
    comparison.ops.push_back(std::move(op));
  }
  return comparison;
}

bool is_regression(const ComparedRow& row) {
  const bool beyond =
      row.significance == Significance::beyond_spread || row.significance == Significance::beyond_default_bound;
  return beyond && row.time_ratio_b_over_a > 1;
}

bool too_noisy_to_compare(const ComparedRow& row) {
  return spread_recorded(row.significance) && row.spread_fraction >= too_noisy_spread_fraction;
}

std::size_t count_too_noisy(const Comparison& comparison) {
  std::size_t noisy = 0;
  for (const OpComparison& op : comparison.ops)
    noisy += std::count_if(op.rows.begin(), op.rows.end(), too_noisy_to_compare);
  return noisy;
}

std::size_t count_regressions(const Comparison& comparison) {
  std::size_t regressions = 0;
  for (const OpComparison& op : comparison.ops)
    regressions += std::count_if(op.rows.begin(), op.rows.end(), is_regression);
  return regressions;
}

}  // namespace fb::diagnosis
