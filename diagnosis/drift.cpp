#include "diagnosis/drift.hpp"

#include "common/robust_statistics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fb::diagnosis {

Baseline baseline_of(std::span<const double> values, double min_spread) {
  if (values.empty()) throw std::invalid_argument("a baseline needs at least one run");
  std::vector<double> logs;
  logs.reserve(values.size());
  for (const double value : values) {
    if (!(value > 0) || !std::isfinite(value)) throw std::invalid_argument("drift is judged on values > 0");
    logs.push_back(std::log(value));
  }
  const double center = median_of(logs);
  std::vector<double> deviations;
  deviations.reserve(logs.size());
  for (const double l : logs) deviations.push_back(std::abs(l - center));
  // 1.4826 x MAD estimates the standard deviation of normal data, and outliers do not drag it.
  const double spread = 1.4826 * median_of(deviations);
  return {.median = std::exp(center), .log_spread = std::max(spread, min_spread), .runs = values.size()};
}

std::vector<DriftChange> detect_drift(std::span<const double> values, const DriftSettings& settings) {
  std::vector<DriftChange> changes;
  std::size_t start = 0;
  while (start + settings.baseline_runs < values.size()) {
    const Baseline baseline = baseline_of(values.subspan(start, settings.baseline_runs), settings.min_spread);
    const double log_center = std::log(baseline.median);
    double upper = 0;
    double lower = 0;
    std::size_t upper_zero = start + settings.baseline_runs - 1;  // the last run at which each sum was 0
    std::size_t lower_zero = upper_zero;
    std::optional<DriftChange> change;
    for (std::size_t i = start + settings.baseline_runs; i < values.size() && !change; ++i) {
      const double z =
          std::clamp((std::log(values[i]) - log_center) / baseline.log_spread, -settings.clip, settings.clip);
      upper = std::max(0.0, upper + z - settings.slack);
      lower = std::max(0.0, lower - z - settings.slack);
      if (upper == 0) upper_zero = i;
      if (lower == 0) lower_zero = i;
      if (upper > settings.threshold || lower > settings.threshold) {
        const bool went_lower = lower > settings.threshold;
        const std::size_t began = (went_lower ? lower_zero : upper_zero) + 1;
        change = DriftChange{.began = began,
                             .flagged = i,
                             .lower = went_lower,
                             .baseline = baseline,
                             .changed_median = median_of(values.subspan(began, i - began + 1))};
      }
    }
    if (!change) break;
    changes.push_back(*change);
    start = change->flagged + 1;
  }
  return changes;
}

SeriesDrift judge_series(const RunSeries& series, const DriftSettings& settings) {
  SeriesDrift drift;
  drift.changes = detect_drift(series.values, settings);
  if (series.values.empty()) return drift;
  drift.baseline_median =
      drift.changes.empty()
          ? baseline_of(std::span(series.values).first(std::min(series.values.size(), settings.baseline_runs)),
                        settings.min_spread)
                .median
          : drift.changes.back().baseline.median;
  if (drift.changes.empty() || drift.changes.back().lower != series.higher_is_better) return drift;
  const DriftChange& c = drift.changes.back();
  drift.open_change = c;
  drift.evidence = fmt::format("{} {:.3f} x baseline since run {} ({}), flagged at run {} ({} runs later); baseline: "
                               "median {:.4g} {} of {} runs, spread {:.2f}%",
                               series.value_name, c.ratio(), series.run_ids.at(c.began), series.start_times.at(c.began),
                               series.run_ids.at(c.flagged), c.flagged - c.began, c.baseline.median, series.unit,
                               c.baseline.runs, 100 * c.baseline.log_spread);
  return drift;
}

}  // namespace fb::diagnosis
