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

std::map<MatchKey, const ResultRow*> index_best(std::span<const ResultRow> rows, std::size_t& duplicates) {
  std::map<MatchKey, const ResultRow*> index;
  for (const ResultRow& row : rows) {
    auto [it, inserted] = index.try_emplace(key_of(row), &row);
    if (inserted) continue;
    ++duplicates;
    if (row.time_median_us < it->second->time_median_us) it->second = &row;
  }
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

Comparison compare_results(std::span<const ResultRow> a, std::span<const ResultRow> b) {
  Comparison comparison;
  const auto index_a = index_best(a, comparison.duplicates_merged);
  const auto index_b = index_best(b, comparison.duplicates_merged);
  std::map<std::string, OpComparison> by_op;
  for (const auto& [key, row_a] : index_a) {
    const auto match = index_b.find(key);
    if (match == index_b.end() || row_a->time_median_us <= 0 || match->second->time_median_us <= 0) {
      ++comparison.only_in_a;
      continue;
    }
    ComparedRow compared{*row_a, *match->second, match->second->time_median_us / row_a->time_median_us,
                         default_noise_bound_fraction, Significance::within_default_bound};
    const std::optional<double> spread_a = run_to_run_spread(compared.a);
    const std::optional<double> spread_b = run_to_run_spread(compared.b);
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
