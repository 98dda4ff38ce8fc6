#include "reports/compare/comparison_table.hpp"

#include "results/csv_field.hpp"

#include "common/sizes.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace fb {

using diagnosis::ComparedRow;
using diagnosis::Comparison;
using diagnosis::OpComparison;
using diagnosis::Significance;
using diagnosis::default_noise_bound_fraction;
using diagnosis::spread_recorded;
using diagnosis::too_noisy_spread_fraction;
using diagnosis::name_of;
namespace {

std::string format_optional(const std::optional<double>& value, std::string_view format) {
  return value ? fmt::format(fmt::runtime(format), *value) : std::string("n/a");
}

// A pair's row names its pair: its hosts where they differ, else its ranks; a collective's row its
// placement.
std::string subject_of(const ResultRow& row) {
  if (!row.src_host.empty() && !row.dst_host.empty() && row.src_host != row.dst_host)
    return fmt::format("{}->{}", row.src_host, row.dst_host);
  if (row.src_rank && row.dst_rank) return fmt::format("rank {}->{}", *row.src_rank, *row.dst_rank);
  return row.in_place ? "in-place" : "out-of-place";
}

}  // namespace

std::string comparison_to_csv(const Comparison& comparison) {
  std::string csv =
      "op,dtype,redop,in_place,nranks,src_rank,dst_rank,src_host,dst_host,bytes,time_median_us_a,time_median_us_b,"
      "busbw_gbps_a,busbw_gbps_b,time_ratio_b_over_a,spread_fraction,significance\n";
  const auto cell = [](std::string_view text) { return csv_field(text); };
  const auto optional_cell = [](const auto& value) { return value ? fmt::format("{}", *value) : std::string(); };
  for (const OpComparison& op : comparison.ops) {
    for (const ComparedRow& row : op.rows) {
      csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", cell(row.a.op), cell(row.a.dtype),
                         cell(row.a.redop), row.a.in_place, row.a.nranks, optional_cell(row.a.src_rank),
                         optional_cell(row.a.dst_rank), cell(row.a.src_host), cell(row.a.dst_host), row.a.bytes,
                         row.a.time_median_us, row.b.time_median_us, optional_cell(row.a.busbw_gbps),
                         optional_cell(row.b.busbw_gbps), row.time_ratio_b_over_a,
                         spread_recorded(row.significance) ? fmt::format("{}", row.spread_fraction) : std::string(),
                         cell(name_of(row.significance)));
    }
  }
  return csv;
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
                      {"src_host", row.a.src_host},
                      {"dst_host", row.a.dst_host},
                      {"repetitions_a", row.repetitions_a},
                      {"repetitions_b", row.repetitions_b},
                      {"time_median_us_a", row.a.time_median_us},
                      {"time_median_us_b", row.b.time_median_us},
                      {"time_ratio_b_over_a", row.time_ratio_b_over_a},
                      {"spread_fraction", spread_recorded(row.significance) ? nlohmann::json(row.spread_fraction)
                                                                            : nlohmann::json(nullptr)},
                      {"significance", name_of(row.significance)},
                      {"regression", row.regression},
                      {"too_noisy", row.too_noisy}});
    ops.push_back({{"op", op.op},
                   {"geomean_time_ratio_b_over_a", op.geomean_time_ratio_b_over_a},
                   {"regressions", op.regressions},
                   {"too_noisy", op.too_noisy},
                   {"rows", rows}});
  }
  const nlohmann::json json{{"schema", "fabricbench.compare.v1"},
                            {"a", label_a},
                            {"b", label_b},
                            {"regressions", comparison.regressions},
                            {"too_noisy", comparison.too_noisy},
                            {"only_in_a", comparison.only_in_a},
                            {"only_in_b", comparison.only_in_b},
                            {"ops", ops}};
  return json.dump(2) + "\n";
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one table row per compared size with its noise marks; each branch is one mark
void print_comparison(std::ostream& out, const Comparison& comparison, std::string_view label_a,
                      std::string_view label_b) {
  out << fmt::format("# A: {}\n# B: {}\n# time ratio B/A < 1: B is faster. '*': beyond the run-to-run spread of "
                     "both sides; '?': a side recorded no spread (not available), so the ratio is judged against "
                     "the default noise bound of {:.0f}%; '?*': beyond that bound\n",
                     label_a, label_b, 100 * default_noise_bound_fraction);
  for (const OpComparison& op : comparison.ops) {
    const bool pairs = !op.rows.empty() && op.rows.front().a.src_rank.has_value();
    out << fmt::format("#\n# {}\n# {:>12} {:>12} {:>6} {:>12} {:>12} {:>10} {:>10} {:>9} {:>8}\n", op.op,
                       pairs ? "pair" : "placement", "size", "ranks", "time A (us)", "time B (us)", "busbw A",
                       "busbw B", "B/A time", "spread");
    for (const ComparedRow& row : op.rows) {
      const std::string_view mark = row.significance == Significance::beyond_spread          ? "* "
                                    : row.significance == Significance::beyond_default_bound ? "?*"
                                    : row.significance == Significance::within_default_bound ? "? "
                                                                                             : "  ";
      out << fmt::format("  {:>12} {:>12} {:>6} {:>12.2f} {:>12.2f} {:>10} {:>10} {:>8.3f}{} {:>8}\n",
                         subject_of(row.a), format_size_bytes(row.a.bytes), row.a.nranks, row.a.time_median_us,
                         row.b.time_median_us, format_optional(row.a.busbw_gbps, "{:.2f}"),
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
    if (const std::size_t noisy = op.too_noisy; noisy > 0)
      verdict += fmt::format("; {} of them too noisy to compare (spread >= {:.0f}%: a difference of {:.0f}x or less "
                             "hides in the noise)",
                             noisy, 100 * too_noisy_spread_fraction, 1 + too_noisy_spread_fraction);
    out << fmt::format("# {}: geometric mean time ratio B/A {:.3f} over {} sizes; {}\n", op.op,
                       op.geomean_time_ratio_b_over_a, op.rows.size(), verdict);
  }
  if (comparison.only_in_a || comparison.only_in_b)
    out << fmt::format("# unmatched rows: {} only in A, {} only in B\n", comparison.only_in_a, comparison.only_in_b);
  out << fmt::format("# regressions: {} sizes where B is slower than A beyond the spread\n", comparison.regressions);
  if (const std::size_t noisy = comparison.too_noisy; noisy > 0)
    out << fmt::format("# too noisy to compare: {} sizes whose runs spread {:.0f}% or more; at those sizes these runs "
                       "say nothing about each other (more iterations, or a quieter machine)\n",
                       noisy, 100 * too_noisy_spread_fraction);
  std::size_t recorded = 0;
  std::size_t fewest_repetitions = 0;
  for (const OpComparison& op : comparison.ops)
    for (const ComparedRow& row : op.rows) {
      if (!spread_recorded(row.significance)) continue;
      ++recorded;
      const std::size_t repetitions = std::min(row.repetitions_a, row.repetitions_b);
      fewest_repetitions = fewest_repetitions == 0 ? repetitions : std::min(fewest_repetitions, repetitions);
    }
  if (recorded > 0 && comparison.too_noisy == 0)
    out << fmt::format("# comparable: at every size with a spread the runs spread less than {:.0f}% ({})\n",
                       100 * too_noisy_spread_fraction,
                       fewest_repetitions > 1
                           ? fmt::format("the spread of each run's own repetitions, {} or more", fewest_repetitions)
                           : std::string("the spread of the iterations within a row"));
  if (comparison.duplicates_merged)
    out << fmt::format("# {} duplicate rows (several runs) were merged, keeping the fastest\n",
                       comparison.duplicates_merged);
}

}  // namespace fb
