#include "diagnosis/baseline.hpp"

#include "common/op_catalog.hpp"
#include "common/robust_statistics.hpp"
#include "diagnosis/comparison.hpp"
#include "diagnosis/drift.hpp"
#include "diagnosis/finding.hpp"
#include "diagnosis/repeated_limit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

namespace fb::diagnosis {
namespace {

// What a measurement is judged by: a latency op's time, otherwise its busbw, or algbw where the
// row has no busbw (one rank, an importer's op).
struct ValueKind {
  std::string name;
  std::string unit;
  bool higher_is_better = true;
};

ValueKind value_kind(const ResultRow& row) {
  const OpTraits* traits = find_op(row.op);
  if (traits && reports_latency(*traits)) return {"time", "us", false};
  return {row.busbw_gbps ? "busbw" : "algbw", "GB/s", true};
}

std::optional<double> value_of(const ResultRow& row, const ValueKind& kind) {
  const double value = !kind.higher_is_better ? row.time_median_us
                       : kind.name == "busbw" ? row.busbw_gbps.value_or(0)
                                              : row.algbw_gbps;
  if (!std::isfinite(value) || value <= 0) return std::nullopt;
  return value;
}

struct Judged {
  const ResultRow* first = nullptr;
  ValueKind kind;
  std::vector<double> values;
  std::optional<double> row_spread;  // the largest of its rows' own spreads; empty if one has none
  bool every_row_has_spread = true;
  std::vector<double> median_noise;  // per row: how uncertain its median is (median_noise_of)
};

struct History {
  std::vector<double> run_values;  // one per baseline run: the median of its rows
  std::optional<double> row_spread;
  bool every_row_has_spread = true;
  std::vector<double> median_noise;
};

void add_spread(const ResultRow& row, std::optional<double>& largest, bool& every_row_has_one) {
  const std::optional<double> spread = run_to_run_spread(row);
  if (!spread) {
    every_row_has_one = false;
    return;
  }
  largest = std::max(largest.value_or(0), *spread);
}

// How uncertain a row's median time is, relative: s x sqrt(pi / (2 x iterations)) (the median of n
// draws varies pi/2 times as much as their mean), s being the spread of the bulk of its
// iterations: the CV, or where a few very slow iterations inflate the CV (a neighbour's job on a
// shared machine), the distance of the fastest iteration under the median, which they cannot move.
// Runs cannot differ less than their own medians do, so this floors the run-to-run spread: three
// runs that happen to agree closely would otherwise make a noisy measurement look exact.
std::optional<double> median_noise_of(const ResultRow& row) {
  if (!reports_statistic(row, "time_cv") || row.iterations <= 0 || !std::isfinite(row.time_cv) ||
      row.time_median_us <= 0)
    return std::nullopt;
  const double below_median = std::max(0.0, 1 - row.time_min_us / row.time_median_us);
  const double bulk = reports_statistic(row, "time_min_us") ? std::min(row.time_cv, below_median) : row.time_cv;
  return std::log1p(bulk * std::sqrt(std::numbers::pi / (2.0 * row.iterations)));
}

std::vector<Judged> group_judged(std::span<const ResultRow> rows, std::map<std::string, std::size_t>& index_of) {
  std::vector<Judged> judged;
  for (const ResultRow& row : rows) {
    const ValueKind kind = value_kind(row);
    const std::optional<double> value = value_of(row, kind);
    if (!value) continue;
    const auto [it, added] = index_of.try_emplace(measurement_key(row), judged.size());
    if (added) judged.push_back({&row, kind, {}, {}, true, {}});
    Judged& j = judged[it->second];
    j.values.push_back(*value);
    add_spread(row, j.row_spread, j.every_row_has_spread);
    if (const std::optional<double> noise = median_noise_of(row)) j.median_noise.push_back(*noise);
  }
  return judged;
}

std::vector<History> gather_history(std::span<const ResultSet> baseline, const std::vector<Judged>& judged,
                                    const std::map<std::string, std::size_t>& index_of) {
  std::vector<History> history(judged.size());
  for (const ResultSet& run : baseline) {
    std::map<std::size_t, std::vector<double>> values;
    for (const ResultRow& row : run.rows) {
      const auto found = index_of.find(measurement_key(row));
      if (found == index_of.end()) continue;
      const std::optional<double> value = value_of(row, judged[found->second].kind);
      if (!value) continue;
      values[found->second].push_back(*value);
      add_spread(row, history[found->second].row_spread, history[found->second].every_row_has_spread);
      if (const std::optional<double> noise = median_noise_of(row))
        history[found->second].median_noise.push_back(*noise);
    }
    for (const auto& [index, run_values] : values) history[index].run_values.push_back(median_of(run_values));
  }
  return history;
}

std::string subject_of(const ResultRow& row) {
  ResultRow unnamed = row;
  unnamed.run_id.clear();  // the measurement, not the run it came from
  return describe_row(unnamed);
}

BaselineMeasurement judge_one(const Judged& judged, const History& history, const BaselineSettings& settings,
                              double z_pass, double z_fail) {
  BaselineMeasurement m;
  m.first = *judged.first;
  m.subject = subject_of(*judged.first);
  m.value_name = judged.kind.name;
  m.unit = judged.kind.unit;
  m.higher_is_better = judged.kind.higher_is_better;
  m.measured = median_of(judged.values);
  m.judged_rows = judged.values.size();
  m.baseline_runs = history.run_values.size();
  m.baseline_median = median_of(history.run_values);
  const double r = judged.kind.higher_is_better ? std::log(m.measured / m.baseline_median)
                                                : std::log(m.baseline_median / m.measured);
  m.ratio = std::exp(r);
  const double n = static_cast<double>(m.baseline_runs);
  // The window is sigma times the quantiles for a spread across runs, and the summed row spreads
  // itself (as compare judges two runs) when the runs are too few to show their own variation.
  double pass_window = 0;
  double fail_window = 0;
  if (m.baseline_runs >= 3) {
    const double across = baseline_of(history.run_values).log_spread;
    std::vector<double> noise = history.median_noise;
    noise.insert(noise.end(), judged.median_noise.begin(), judged.median_noise.end());
    const double floor = noise.empty() ? 0 : median_of(noise);
    const double spread = std::max(across, floor);
    m.log_sigma = spread * std::sqrt(1 + std::numbers::pi / (2 * n));
    pass_window = z_pass * *m.log_sigma;
    fail_window = z_fail * *m.log_sigma;
    m.spread_source = across >= floor
                          ? fmt::format("run-to-run spread {:.2f}% across {} runs", 100 * across, m.baseline_runs)
                          : fmt::format("spread {:.2f}%: the rows' medians vary more than the {} runs do ({:.2f}%)",
                                        100 * floor, m.baseline_runs, 100 * across);
  } else if (history.every_row_has_spread && judged.every_row_has_spread && history.row_spread && judged.row_spread) {
    m.log_sigma = std::log(1 + *history.row_spread + *judged.row_spread);
    pass_window = fail_window = *m.log_sigma;
    m.spread_source = fmt::format("{} baseline run{}: the rows' own spread {:.2f}% + {:.2f}% (3 runs give a "
                                  "run-to-run spread)",
                                  m.baseline_runs, m.baseline_runs == 1 ? "" : "s", 100 * *history.row_spread,
                                  100 * *judged.row_spread);
  } else {
    m.spread_source = fmt::format("{} baseline run{} and a row without a recorded spread (one time per size)",
                                  m.baseline_runs, m.baseline_runs == 1 ? "" : "s");
  }
  const double limit = 1 - settings.tolerance;
  const std::string what =
      fmt::format("{} {:.4g} {} is {:.3f} x the baseline {:.4g} {} (median of {} run{})", m.value_name, m.measured,
                  m.unit, m.ratio, m.baseline_median, m.unit, m.baseline_runs, m.baseline_runs == 1 ? "" : "s");
  if (!m.log_sigma) {
    m.decision = Decision::inconclusive;
    m.statement = fmt::format("INCONCLUSIVE: {}; no spread known: {}", what, m.spread_source);
    return m;
  }
  m.ratio_lower = std::exp(r - pass_window);
  m.ratio_upper = std::exp(r + fail_window);
  m.decision = *m.ratio_lower >= limit  ? Decision::pass
               : *m.ratio_upper < limit ? Decision::fail
                                        : Decision::inconclusive;
  const std::string_view because = m.decision == Decision::pass   ? "at least"
                                   : m.decision == Decision::fail ? "at most"
                                                                  : "between";
  const std::string bounds = m.decision == Decision::pass ? fmt::format("{:.3f}", *m.ratio_lower)
                             : m.decision == Decision::fail
                                 ? fmt::format("{:.3f}", *m.ratio_upper)
                                 : fmt::format("{:.3f} and {:.3f}", *m.ratio_lower, *m.ratio_upper);
  m.statement = fmt::format("{}: {}; {} {} x within the noise (limit {:.2f} x; {})", name_of(m.decision), what, because,
                            bounds, limit, m.spread_source);
  return m;
}

std::string check_statement(const CheckVerdict& check, std::size_t baseline_runs) {
  const auto count = [&](Decision decision) {
    return std::count_if(check.measurements.begin(), check.measurements.end(),
                         [&](const MeasurementVerdict& m) { return m.verdict.decision == decision; });
  };
  return fmt::format("{}: {} measurements against {} baseline runs; {} worse than {:.2f} x beyond the noise, {} "
                     "undecided by the noise",
                     name_of(check.decision), check.measurements.size(), baseline_runs, count(Decision::fail),
                     check.limit, count(Decision::inconclusive));
}

}  // namespace

double normal_quantile(double p) {
  // Bisection on the normal distribution function 0.5 erfc(-x / sqrt 2): exact to 1e-12 in 80 steps.
  double low = -40;
  double high = 40;
  for (int step = 0; step < 80; ++step) {
    const double mid = (low + high) / 2;
    (0.5 * std::erfc(-mid / std::numbers::sqrt2) < p ? low : high) = mid;
  }
  return (low + high) / 2;
}

BaselineVerdict judge_against_baseline(std::span<const ResultRow> rows, std::span<const ResultSet> baseline,
                                       const BaselineSettings& settings) {
  BaselineVerdict verdict;
  verdict.tolerance = settings.tolerance;
  for (const ResultSet& run : baseline) verdict.baseline_run_ids.push_back(run.provenance.run_id);
  std::map<std::string, std::size_t> index_of;
  const std::vector<Judged> judged = group_judged(rows, index_of);
  const std::vector<History> history = gather_history(baseline, judged, index_of);
  const auto matched = static_cast<double>(
      std::count_if(history.begin(), history.end(), [](const History& h) { return !h.run_values.empty(); }));
  const double alpha = (1 - settings.confidence) / 2;
  const double z_pass = normal_quantile(1 - alpha);
  const double z_fail = normal_quantile(1 - alpha / std::max(matched, 1.0));
  std::size_t counts[3] = {0, 0, 0};
  for (std::size_t i = 0; i < judged.size(); ++i) {
    if (history[i].run_values.empty()) {
      ++verdict.unmatched;
      continue;
    }
    verdict.measurements.push_back(judge_one(judged[i], history[i], settings, z_pass, z_fail));
    ++counts[static_cast<int>(verdict.measurements.back().decision)];
  }
  const std::size_t passed = counts[static_cast<int>(Decision::pass)];
  const std::size_t failed = counts[static_cast<int>(Decision::fail)];
  const std::size_t undecided = counts[static_cast<int>(Decision::inconclusive)];
  const std::string not_in_baseline =
      verdict.unmatched ? fmt::format("; {} measurements not in the baseline, not judged", verdict.unmatched) : "";
  if (verdict.measurements.empty()) {
    verdict.decision = Decision::inconclusive;
    verdict.statement = fmt::format("INCONCLUSIVE: the baseline ({} runs) holds none of the {} measurements judged",
                                    baseline.size(), judged.size());
    return verdict;
  }
  verdict.decision = failed ? Decision::fail : undecided ? Decision::inconclusive : Decision::pass;
  verdict.statement = fmt::format(
      "{}: of {} measurements against {} baseline runs, {} within {:.0f}% of the baseline, {} worse beyond the "
      "noise, {} the noise cannot decide ({:.0f}% confidence){}",
      name_of(verdict.decision), verdict.measurements.size(), baseline.size(), passed, 100 * settings.tolerance, failed,
      undecided, 100 * settings.confidence, not_in_baseline);
  return verdict;
}

std::vector<CheckVerdict> baseline_check_verdicts(const BaselineVerdict& verdict, const std::string& origin) {
  std::map<std::string, CheckVerdict> by_op;
  for (const BaselineMeasurement& m : verdict.measurements) {
    auto [it, added] = by_op.try_emplace(m.first.op);
    CheckVerdict& check = it->second;
    if (added) {
      check.check.name =
          fmt::format("{} {} within {:.0f}% of the baseline", m.first.op, m.value_name, 100 * verdict.tolerance);
      check.check.kind = m.higher_is_better ? CheckKind::min_bandwidth : CheckKind::max_latency;
      check.check.selection.op = m.first.op;
      check.check.metric =
          m.higher_is_better ? (m.value_name == "busbw" ? "busbw_gbps" : "algbw_gbps") : "time_median_us";
      check.check.limit = 1 - verdict.tolerance;
      check.origin = origin;
      check.decision = Decision::pass;
      check.unit = "x baseline";
      check.higher_is_better = true;
      check.limit = 1 - verdict.tolerance;
    }
    check.rows += m.judged_rows;
    if (m.decision == Decision::fail || (m.decision == Decision::inconclusive && check.decision == Decision::pass))
      check.decision = m.decision;
    SampleVerdict sample{.decision = m.decision,
                         .samples = m.judged_rows,
                         .median = m.ratio,
                         .lower = m.ratio_lower,
                         .upper = m.ratio_upper,
                         .error_probability = std::nullopt,
                         .repetitions_needed = std::nullopt};
    check.measurements.push_back({m.first, m.subject, sample, m.statement});
  }
  std::vector<CheckVerdict> checks;
  for (auto& [op, check] : by_op) {
    check.statement = check_statement(check, verdict.baseline_run_ids.size());
    checks.push_back(std::move(check));
  }
  return checks;
}

}  // namespace fb::diagnosis
