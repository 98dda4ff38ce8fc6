#pragma once
// Drift and change points in a series of runs (one host's, one pair's, one op and size's value per
// run, oldest first): the cluster's own history as the expectation.
//
// Method: a two-sided CUSUM on the logarithm of the value, standardised by a robust baseline.
//   - The baseline is the first `baseline_runs` runs (after a change, the runs that follow it):
//     their median m and their spread s = 1.4826 x the median absolute deviation of log(value),
//     floored at `min_spread` (identical imported values would otherwise give s = 0).
//   - Each later run gives z = (log(value) - log(m)) / s, clipped to +-`clip`: one wild run (a
//     neighbour's job on the host) moves the sums by at most clip - slack, never to an alarm alone.
//   - S+ = max(0, S+ + z - slack), S- = max(0, S- - z - slack). A sum over `threshold` flags a
//     change; it began at the run after the sum's last zero (Page's estimate of the change point).
//   - Then the baseline restarts after the flagged run, so a second change is found as well.
// Logs make a step of 10% the same size at 5 GB/s and at 400 GB/s; the median and MAD keep a few
// bad runs in the baseline from setting "normal". docs/fleet-health.md has the measured delays and
// false alarms on this machine's noise.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb::diagnosis {

// The defaults are measured (perf/drift_replay on real 2-rank MPI runs of the development machine,
// docs/fleet-health.md): under 1 false alarm per 1,000 stable runs with a 10% step flagged within
// 7 runs (median). A smaller threshold flags sooner and cries wolf more often.
struct DriftSettings {
  std::size_t baseline_runs = 20;
  double slack = 1.0;         // k, in baseline spreads: deviations under it do not accumulate
  double threshold = 7.0;     // h, in baseline spreads
  double clip = 2.0;          // a run's deviation counts at most this many spreads
  double min_spread = 0.005;  // log units: a spread under 0.5% is taken as 0.5%
};

struct Baseline {
  double median = 0;      // of the values, in their unit
  double log_spread = 0;  // robust standard deviation of log(value), floored at min_spread
  std::size_t runs = 0;
};

// The median and robust spread of `values` (all > 0). Throws std::invalid_argument on an empty
// span or a value that is not positive.
Baseline baseline_of(std::span<const double> values, double min_spread = DriftSettings{}.min_spread);

struct DriftChange {
  std::size_t began = 0;      // index of the first run of the change
  std::size_t flagged = 0;    // index of the run at which the sum crossed the threshold
  bool lower = false;         // the value went down (bandwidth lost; for a time, faster)
  Baseline baseline;          // what the runs were judged against
  double changed_median = 0;  // median of the runs from `began` to `flagged`
  double ratio() const { return baseline.median > 0 ? changed_median / baseline.median : 0; }
};

// Every change in `values` (all > 0), in order. Fewer than baseline_runs + 1 values: none.
std::vector<DriftChange> detect_drift(std::span<const double> values, const DriftSettings& settings = {});

// One series of the fleet's history to judge: what it is about and each run's value, oldest first.
struct RunSeries {
  std::string subject;           // "host node3: pairwise 4M", "all_reduce 1M, 8 ranks"
  std::string host;              // the one host the series is of; empty for a pair or a collective
  std::string value_name;        // busbw, algbw, time
  std::string unit;              // GB/s, us
  bool higher_is_better = true;  // bandwidths; a time is better lower
  std::vector<std::string> run_ids{};
  std::vector<std::string> start_times{};
  std::vector<double> values{};
};

struct SeriesDrift {
  std::vector<DriftChange> changes;
  double baseline_median =
      0;  // what the latest run is judged against: the last change's baseline, else the first runs'
  // The last change, when it made the series worse: the series is degraded now.
  std::optional<DriftChange> open_change;
  // The open change in words: ratio, the run it began at and when, the run that flagged it.
  std::string evidence;
};

SeriesDrift judge_series(const RunSeries& series, const DriftSettings& settings = {});

}  // namespace fb::diagnosis
