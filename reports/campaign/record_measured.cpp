#include "reports/campaign/record_measured.hpp"

#include "common/robust_statistics.hpp"
#include "common/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace fb {
namespace {

bool is_pair_row(const ResultRow& row) { return row.src_rank.has_value() || !row.src_host.empty(); }

double bandwidth_of(const ResultRow& row) { return row.busbw_gbps.value_or(row.algbw_gbps); }

std::string pair_name(const ResultRow& row) {
  if (!row.src_host.empty() && row.src_host != row.dst_host) return fmt::format("{} -> {}", row.src_host, row.dst_host);
  return fmt::format("rank {} -> rank {}", row.src_rank.value_or(-1), row.dst_rank.value_or(-1));
}

// Values grouped under a key, the keys in the order of their first row.
template <typename Key>
class Grouped {
 public:
  std::vector<double>& operator[](const Key& key) {
    const auto [it, added] = index_.try_emplace(key, groups_.size());
    if (added) groups_.emplace_back(key, std::vector<double>{});
    return groups_[it->second].second;
  }
  const std::vector<std::pair<Key, std::vector<double>>>& groups() const { return groups_; }

 private:
  std::map<Key, std::size_t> index_;
  std::vector<std::pair<Key, std::vector<double>>> groups_;
};

// A collective measurement's line: op, placement, ranks.
std::string collective_key(const ResultRow& row) {
  return fmt::format("{}{}, {} ranks", row.op, row.in_place ? " in-place" : "", row.nranks);
}

// The medians over repetitions of each collective line at each size.
struct CollectiveCurve {
  std::string key;
  std::vector<std::pair<std::uint64_t, double>> medians;  // size, median busbw; sizes ascending
  std::size_t repetitions = 0;                            // the most any size had
  bool busbw = true;
};

std::vector<CollectiveCurve> collective_curves(std::span<const ResultRow> rows) {
  Grouped<std::pair<std::string, std::uint64_t>> values;
  std::map<std::string, bool> has_busbw;
  for (const ResultRow& row : rows) {
    if (is_pair_row(row)) continue;
    values[{collective_key(row), row.bytes}].push_back(bandwidth_of(row));
    has_busbw.try_emplace(collective_key(row), row.busbw_gbps.has_value());
  }
  std::vector<CollectiveCurve> curves;
  for (const auto& [key, samples] : values.groups()) {
    auto curve = std::find_if(curves.begin(), curves.end(),
                              [&line = key.first](const CollectiveCurve& c) { return c.key == line; });
    if (curve == curves.end()) curve = curves.insert(curves.end(), {key.first, {}, 0, has_busbw[key.first]});
    curve->medians.emplace_back(key.second, median_of(samples));
    curve->repetitions = std::max(curve->repetitions, samples.size());
  }
  for (CollectiveCurve& curve : curves) std::sort(curve.medians.begin(), curve.medians.end());
  return curves;
}

// One op's pairs at one size with one number of pairs in flight: each pair's median over its
// repetitions, in the rows' order.
struct PairSet {
  std::string op;
  int flows = 1;
  std::uint64_t bytes = 0;
  std::vector<std::pair<std::string, double>> pairs;  // name, median bandwidth (GB/s)

  double median() const {
    std::vector<double> medians;
    for (const auto& pair : pairs) medians.push_back(pair.second);
    return median_of(medians);
  }
  const std::pair<std::string, double>& slowest() const {
    return *std::min_element(pairs.begin(), pairs.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
  }
  std::string flows_text() const {
    return flows > 1 ? fmt::format("{} pairs at once", flows) : std::string("each pair alone");
  }
};

std::vector<PairSet> pair_sets(std::span<const ResultRow> rows) {
  using Key = std::tuple<std::string, int, std::uint64_t, std::string>;  // op, flows, size, pair
  Grouped<Key> values;
  for (const ResultRow& row : rows)
    if (is_pair_row(row))
      values[{row.op, row.concurrent_flows.value_or(1), row.bytes, pair_name(row)}].push_back(bandwidth_of(row));
  std::vector<PairSet> sets;
  for (const auto& [key, samples] : values.groups()) {
    const auto& [op, flows, bytes, pair] = key;
    auto set = std::find_if(sets.begin(), sets.end(), [&, &o = op, f = flows, b = bytes](const PairSet& s) {
      return s.op == o && s.flows == f && s.bytes == b;
    });
    if (set == sets.end()) set = sets.insert(sets.end(), PairSet{op, flows, bytes, {}});
    set->pairs.emplace_back(pair, median_of(samples));
  }
  return sets;
}

std::string gbps(double value) { return fmt::format("{:.3g} GB/s", value); }

std::optional<LogLogPlot> collective_plot(const RecordStage& stage) {
  const std::vector<CollectiveCurve> curves = collective_curves(stage.measured);
  if (curves.empty()) return std::nullopt;
  LogLogPlot plot;
  plot.title = fmt::format("stage {}: what it measured", stage.name);
  plot.x_label = "size (bytes)";
  const bool busbw = std::all_of(curves.begin(), curves.end(), [](const CollectiveCurve& c) { return c.busbw; });
  plot.y_label = busbw ? "busbw (GB/s)" : "algbw (GB/s)";
  plot.y_log = false;
  for (const CollectiveCurve& curve : curves) {
    PlotSeries series{fmt::format("{}: median of {} repetitions", curve.key, curve.repetitions), {}, {}};
    for (const auto& [bytes, median] : curve.medians) series.points.emplace_back(static_cast<double>(bytes), median);
    plot.series.push_back(std::move(series));
  }
  return plot;
}

// At one size every pair is a point (x: the pair's place in the rows' order), a line per op and
// number of pairs in flight; over several sizes, per size the median pair and the slowest.
std::optional<LogLogPlot> pair_plot(const RecordStage& stage) {
  const std::vector<PairSet> sets = pair_sets(stage.measured);
  if (sets.empty()) return std::nullopt;
  std::set<std::uint64_t> sizes;
  for (const PairSet& set : sets) sizes.insert(set.bytes);
  LogLogPlot plot;
  plot.y_label = "bandwidth (GB/s)";
  plot.y_log = false;
  if (sizes.size() == 1) {
    plot.title = fmt::format("stage {}: every pair at {}", stage.name, format_size_bytes(*sizes.begin()));
    plot.x_label = "pair (numbered by source, then destination, as measured)";
    plot.x_is_bytes = false;
    plot.x_log = false;
    std::size_t most_pairs = 0;
    for (const PairSet& set : sets) most_pairs = std::max(most_pairs, set.pairs.size());
    plot.x_range = {0.5, static_cast<double>(most_pairs) + 0.5};
    for (const PairSet& set : sets) {
      PlotSeries series{fmt::format("{}, {}: median of repetitions", set.op, set.flows_text()), {}, {}};
      for (std::size_t i = 0; i < set.pairs.size(); ++i)
        series.points.emplace_back(static_cast<double>(i + 1), set.pairs[i].second);
      plot.series.push_back(std::move(series));
    }
    return plot;
  }
  plot.title = fmt::format("stage {}: pairs per size", stage.name);
  plot.x_label = "size (bytes)";
  std::map<std::pair<std::string, int>, std::pair<std::size_t, std::size_t>> series_of;  // op, flows: median, slowest
  for (const PairSet& set : sets) {
    const auto [it, added] = series_of.try_emplace({set.op, set.flows}, plot.series.size(), plot.series.size() + 1);
    if (added) {
      plot.series.push_back({fmt::format("{}, {}: median pair", set.op, set.flows_text()), {}, {}});
      plot.series.push_back({fmt::format("{}, {}: slowest pair", set.op, set.flows_text()), {}, {}});
    }
    const auto x = static_cast<double>(set.bytes);
    plot.series[it->second.first].points.emplace_back(x, set.median());
    plot.series[it->second.second].points.emplace_back(x, set.slowest().second);
  }
  for (PlotSeries& series : plot.series) std::sort(series.points.begin(), series.points.end());
  return plot;
}

void stage_findings(const RecordStage& stage, std::vector<std::string>& out) {
  for (const CollectiveCurve& curve : collective_curves(stage.measured)) {
    const auto peak = std::max_element(curve.medians.begin(), curve.medians.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    out.push_back(fmt::format("stage {}: {} peaks at {} {} at {} (median of its repetitions)", stage.name, curve.key,
                              gbps(peak->second), curve.busbw ? "busbw" : "algbw", format_size_bytes(peak->first)));
  }
  const std::vector<PairSet> sets = pair_sets(stage.measured);
  // Each op and number in flight at its largest size: the pairs' spread there.
  std::map<std::pair<std::string, int>, const PairSet*> largest;
  for (const PairSet& set : sets) {
    const PairSet*& kept = largest[{set.op, set.flows}];
    if (!kept || set.bytes > kept->bytes) kept = &set;
  }
  for (const PairSet& set : sets) {
    if (largest[{set.op, set.flows}] != &set) continue;
    const double median = set.median();
    const auto& [slowest, slowest_gbps] = set.slowest();
    out.push_back(fmt::format("stage {}: {} at {}, {}: the median pair reaches {}, the slowest ({}) {}, {:.0f}% of "
                              "the median pair",
                              stage.name, set.op, format_size_bytes(set.bytes), set.flows_text(), gbps(median), slowest,
                              gbps(slowest_gbps), median > 0 ? 100 * slowest_gbps / median : 0.0));
  }
  // Pairs at once against the same pairs alone, at the same op and size: what sharing costs.
  for (const PairSet& together : sets) {
    if (together.flows <= 1) continue;
    for (const PairSet& alone : sets)
      if (alone.flows <= 1 && alone.op == together.op && alone.bytes == together.bytes && alone.median() > 0)
        out.push_back(fmt::format("stage {}: {} at {}: with {} the median pair gets {}, {:.0f}% of its {} alone",
                                  stage.name, together.op, format_size_bytes(together.bytes), together.flows_text(),
                                  gbps(together.median()), 100 * together.median() / alone.median(),
                                  gbps(alone.median())));
  }
}

// Of every measurement a check judged with both bounds: the widest interval (upper over lower),
// and of those that passed, the one whose deciding bound came closest to the limit.
void check_findings(const CampaignRecord& record, std::vector<std::string>& out) {
  const diagnosis::CheckVerdict* widest_check = nullptr;
  const diagnosis::MeasurementVerdict* widest = nullptr;
  const diagnosis::CheckVerdict* closest_check = nullptr;
  const diagnosis::MeasurementVerdict* closest = nullptr;
  double widest_ratio = 0;
  double closest_margin = 0;
  for (const diagnosis::CheckVerdict& check : record.judgement.checks)
    for (const diagnosis::MeasurementVerdict& m : check.measurements) {
      const auto& v = m.verdict;
      if (v.lower && v.upper && *v.lower > 0 && *v.upper / *v.lower > widest_ratio) {
        widest_ratio = *v.upper / *v.lower;
        widest_check = &check;
        widest = &m;
      }
      const std::optional<double> bound = check.higher_is_better ? v.lower : v.upper;
      if (v.decision != diagnosis::Decision::pass || !bound || check.limit <= 0) continue;
      const double margin = std::abs(*bound - check.limit) / check.limit;
      if (!closest || margin < closest_margin) {
        closest_margin = margin;
        closest_check = &check;
        closest = &m;
      }
    }
  if (widest)
    out.push_back(fmt::format("the widest interval a verdict rests on: {}, {}: {:.4g} to {:.4g} {} ({:.1f}x), from "
                              "the spread of its {} repetitions",
                              widest_check->check.name, widest->subject, *widest->verdict.lower, *widest->verdict.upper,
                              widest_check->unit, widest_ratio, widest->verdict.samples));
  if (closest)
    out.push_back(fmt::format("the narrowest pass: {}, {}: its {} bound {:.4g} {} against the limit {:.4g}, {:.1f}% "
                              "inside it",
                              closest_check->check.name, closest->subject,
                              closest_check->higher_is_better ? "lower" : "upper",
                              closest_check->higher_is_better ? *closest->verdict.lower : *closest->verdict.upper,
                              closest_check->unit, closest_check->limit, 100 * closest_margin));
}

}  // namespace

std::vector<LogLogPlot> stage_plots(const RecordStage& stage) {
  std::vector<LogLogPlot> plots;
  if (std::optional<LogLogPlot> plot = collective_plot(stage)) plots.push_back(std::move(*plot));
  if (std::optional<LogLogPlot> plot = pair_plot(stage)) plots.push_back(std::move(*plot));
  return plots;
}

std::vector<std::string> record_findings(const CampaignRecord& record) {
  std::vector<std::string> findings;
  for (const RecordStage& stage : record.stages) stage_findings(stage, findings);
  check_findings(record, findings);
  return findings;
}

}  // namespace fb
