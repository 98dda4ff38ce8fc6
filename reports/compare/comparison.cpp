#include "reports/compare/comparison.hpp"

#include "common/sizes.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace fb {
namespace {

using MatchKey = std::tuple<std::string, std::string, std::string, bool, int, std::uint64_t, std::optional<int>,
                            std::optional<int>, std::string, std::string>;

MatchKey key_of(const ResultRow& row) {
  // Ranks identify endpoints across clusters whose host names differ; hosts only stand in for
  // rows that carry no ranks.
  const bool by_rank = row.src_rank.has_value();
  return {row.op,          row.dtype,    row.redop,
          row.in_place,    row.nranks,   row.bytes,
          row.src_rank,    row.dst_rank, by_rank ? std::string() : row.src_host,
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

std::string format_optional(const std::optional<double>& value, std::string_view format) {
  return value ? fmt::format(fmt::runtime(format), *value) : std::string("n/a");
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
    compared.significance = recorded ? (beyond ? Significance::beyond_spread : Significance::within_spread)
                                     : (beyond ? Significance::beyond_default_bound : Significance::within_default_bound);
    OpComparison& op = by_op[row_a->op];
    op.op = row_a->op;
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
    comparison.ops.push_back(std::move(op));
  }
  return comparison;
}

std::string comparison_to_csv(const Comparison& comparison) {
  std::string csv =
      "op,dtype,redop,in_place,nranks,src_rank,dst_rank,src_host,dst_host,bytes,time_median_us_a,time_median_us_b,"
      "busbw_gbps_a,busbw_gbps_b,time_ratio_b_over_a,spread_fraction,significance\n";
  const auto cell = [](const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
  };
  const auto optional_cell = [](const auto& value) { return value ? fmt::format("{}", *value) : std::string(); };
  for (const OpComparison& op : comparison.ops) {
    for (const ComparedRow& row : op.rows) {
      csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", cell(row.a.op), cell(row.a.dtype),
                         cell(row.a.redop), row.a.in_place, row.a.nranks, optional_cell(row.a.src_rank),
                         optional_cell(row.a.dst_rank), cell(row.a.src_host), cell(row.a.dst_host), row.a.bytes,
                         row.a.time_median_us, row.b.time_median_us, optional_cell(row.a.busbw_gbps),
                         optional_cell(row.b.busbw_gbps), row.time_ratio_b_over_a,
                         spread_recorded(row.significance) ? fmt::format("{}", row.spread_fraction) : std::string(),
                         name_of(row.significance));
    }
  }
  return csv;
}

bool is_regression(const ComparedRow& row) {
  const bool beyond =
      row.significance == Significance::beyond_spread || row.significance == Significance::beyond_default_bound;
  return beyond && row.time_ratio_b_over_a > 1;
}

std::string comparison_to_json(const Comparison& comparison, std::string_view label_a, std::string_view label_b) {
  nlohmann::json ops = nlohmann::json::array();
  for (const OpComparison& op : comparison.ops) {
    nlohmann::json rows = nlohmann::json::array();
    for (const ComparedRow& row : op.rows)
      rows.push_back({{"bytes", row.a.bytes},
                      {"in_place", row.a.in_place},
                      {"nranks", row.a.nranks},
                      {"src_rank", row.a.src_rank ? nlohmann::json(*row.a.src_rank) : nlohmann::json(nullptr)},
                      {"dst_rank", row.a.dst_rank ? nlohmann::json(*row.a.dst_rank) : nlohmann::json(nullptr)},
                      {"time_median_us_a", row.a.time_median_us},
                      {"time_median_us_b", row.b.time_median_us},
                      {"time_ratio_b_over_a", row.time_ratio_b_over_a},
                      {"spread_fraction", spread_recorded(row.significance) ? nlohmann::json(row.spread_fraction)
                                                                            : nlohmann::json(nullptr)},
                      {"significance", name_of(row.significance)},
                      {"regression", is_regression(row)},
                      {"too_noisy", too_noisy_to_compare(row)}});
    ops.push_back({{"op", op.op},
                   {"geomean_time_ratio_b_over_a", op.geomean_time_ratio_b_over_a},
                   {"regressions", std::count_if(op.rows.begin(), op.rows.end(), is_regression)},
                   {"too_noisy", std::count_if(op.rows.begin(), op.rows.end(), too_noisy_to_compare)},
                   {"rows", rows}});
  }
  const nlohmann::json json{{"schema", "fabricbench.compare.v1"},
                            {"a", label_a},
                            {"b", label_b},
                            {"regressions", count_regressions(comparison)},
                            {"too_noisy", count_too_noisy(comparison)},
                            {"only_in_a", comparison.only_in_a},
                            {"only_in_b", comparison.only_in_b},
                            {"ops", ops}};
  return json.dump(2) + "\n";
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

void print_comparison(std::ostream& out, const Comparison& comparison, std::string_view label_a,
                      std::string_view label_b) {
  out << fmt::format("# A: {}\n# B: {}\n# time ratio B/A < 1: B is faster. '*': beyond the run-to-run spread of "
                     "both sides; '?': a side recorded no spread (not available), so the ratio is judged against "
                     "the default noise bound of {:.0f}%; '?*': beyond that bound\n",
                     label_a, label_b, 100 * default_noise_bound_fraction);
  for (const OpComparison& op : comparison.ops) {
    out << fmt::format("#\n# {}\n# {:>12} {:>12} {:>6} {:>12} {:>12} {:>10} {:>10} {:>9} {:>8}\n", op.op, "placement",
                       "size", "ranks", "time A (us)", "time B (us)", "busbw A", "busbw B", "B/A time", "spread");
    for (const ComparedRow& row : op.rows) {
      const std::string_view mark = row.significance == Significance::beyond_spread          ? "* "
                                    : row.significance == Significance::beyond_default_bound ? "?*"
                                    : row.significance == Significance::within_default_bound ? "? "
                                                                                             : "  ";
      out << fmt::format("  {:>12} {:>12} {:>6} {:>12.2f} {:>12.2f} {:>10} {:>10} {:>8.3f}{} {:>8}\n",
                         row.a.in_place ? "in-place" : "out-of-place", format_size_bytes(row.a.bytes), row.a.nranks,
                         row.a.time_median_us, row.b.time_median_us, format_optional(row.a.busbw_gbps, "{:.2f}"),
                         format_optional(row.b.busbw_gbps, "{:.2f}"), row.time_ratio_b_over_a, mark,
                         spread_recorded(row.significance) ? fmt::format("{:.1f}%", 100 * row.spread_fraction)
                                                           : std::string("n/a"));
    }
    const auto count = [&](Significance significance) {
      return std::count_if(op.rows.begin(), op.rows.end(),
                           [&](const ComparedRow& r) { return r.significance == significance; });
    };
    const auto without_spread = count(Significance::within_default_bound) + count(Significance::beyond_default_bound);
    // Never "0 beyond the spread" for sizes whose spread nobody recorded.
    std::string verdict;
    if (without_spread < static_cast<std::ptrdiff_t>(op.rows.size()))
      verdict = fmt::format("{} of {} sizes beyond the spread", count(Significance::beyond_spread),
                            static_cast<std::ptrdiff_t>(op.rows.size()) - without_spread);
    if (without_spread > 0)
      verdict += fmt::format("{}spread not available for {} sizes (a side reports one time per size): {} beyond the "
                             "default noise bound of {:.0f}%",
                             verdict.empty() ? "" : "; ", without_spread, count(Significance::beyond_default_bound),
                             100 * default_noise_bound_fraction);
    if (const auto noisy = std::count_if(op.rows.begin(), op.rows.end(), too_noisy_to_compare); noisy > 0)
      verdict += fmt::format("; {} of them too noisy to compare (spread >= {:.0f}%: a difference of {:.0f}x or less "
                             "hides in the noise)",
                             noisy, 100 * too_noisy_spread_fraction, 1 + too_noisy_spread_fraction);
    out << fmt::format("# {}: geometric mean time ratio B/A {:.3f} over {} sizes; {}\n", op.op,
                       op.geomean_time_ratio_b_over_a, op.rows.size(), verdict);
  }
  if (comparison.only_in_a || comparison.only_in_b)
    out << fmt::format("# unmatched rows: {} only in A, {} only in B\n", comparison.only_in_a, comparison.only_in_b);
  out << fmt::format("# regressions: {} sizes where B is slower than A beyond the spread\n",
                     count_regressions(comparison));
  if (const std::size_t noisy = count_too_noisy(comparison); noisy > 0)
    out << fmt::format("# too noisy to compare: {} sizes whose runs spread {:.0f}% or more; at those sizes these runs "
                       "say nothing about each other (more iterations, or a quieter machine)\n",
                       noisy, 100 * too_noisy_spread_fraction);
  if (comparison.duplicates_merged)
    out << fmt::format("# {} duplicate rows (several runs) were merged, keeping the fastest\n",
                       comparison.duplicates_merged);
}

}  // namespace fb
