#pragma once
// Drift and change points in a series of runs (one host's, one pair's, one op and size's value per
// run, oldest first): the cluster's own history as the expectation.
//
// Method: a two-sided CUSUM on the logarithm of the value, standardised by a robust baseline.
//   - The baseline is the first `baseline_runs` runs (after a change that persisted, the runs that
//     follow it): their median m and their spread s = 1.4826 x the median absolute deviation of
//     log(value), floored at `min_spread` (identical imported values would otherwise give s = 0).
//   - Each later run gives z = (log(value) - log(m)) / s, clipped to +-(slack + h / (N - 1)), N =
//     `min_change_runs` (3): one wild run (a neighbour's job on the host) moves the sums by at most
//     h / 2, and two in a row reach h but do not pass it: a change is three runs, never one or two.
//   - The spread is Rousseeuw and Croux's Qn rather than the MAD (as robust, twice as efficient),
//     and while no change has been found the baseline grows with the runs judged against it (at
//     40, 80, ... runs, up to max_baseline_runs): 20 runs' median and spread are uncertain enough
//     to raise false alarms and to slow the flag of a small step.
//   - S+ = max(0, S+ + z - slack), S- = max(0, S- - z - slack). A sum over `threshold` flags a
//     change. When it began is the best fit over the runs judged against this baseline: a step
//     (one level, then another) or a decline (one level, then a straight line in log(value)) from
//     each possible first run, the least squares winning; so a decline that started with the
//     history is dated to its first run, not to the first run after the baseline.
//   - A change has a life: it is cleared at the run that ends `clear_runs` runs in a row within
//     `band_spreads` spreads of the baseline it was judged against (a repaired host, a false
//     alarm). Then the sums restart against the same baseline. A change that does not clear within
//     `baseline_runs` runs is the series' new level: the baseline restarts after the flagged run, so
//     a second change is found as well, while the first stays open until the series is back.
// Logs make a step of 10% the same size at 5 GB/s and at 400 GB/s; the median and MAD keep a few
// bad runs in the baseline from setting "normal". docs/fleet-health.md has the measured delays and
// false alarms (perf/drift_replay on real runs' noise, tests/unit/drift_history_test.cpp on
// seeded histories).

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb::diagnosis {

// The defaults are measured (docs/fleet-health.md, "Drift: measured"; tests/unit/drift_history_test.cpp):
// on +-3% noise a step of 15% is flagged at its third run, one of 5% by its eighth in 95% of
// histories, 0.3 false alarms per 1,000 runs. A smaller threshold flags sooner and cries wolf more.
struct DriftSettings {
  std::size_t baseline_runs = 20;
  double slack = 1.5;      // k, in baseline spreads: deviations under it do not accumulate
  double threshold = 5.0;  // h, in baseline spreads
  // The fewest runs that make a change: each run's deviation is clipped to slack + h / (N - 1)
  // spreads, so N - 1 wild runs in a row reach h and do not pass it. 3 flags a large step at its
  // third run; on a machine whose noise comes in blocks of bad runs, more keeps blocks from alarms.
  std::size_t min_change_runs = 3;
  double clip() const { return slack + threshold / static_cast<double>(std::max<std::size_t>(min_change_runs, 2) - 1); }
  double min_spread = 0.005;   // log units: a spread under 0.5% is taken as 0.5%
  double band_spreads = 1.5;   // a run no further than this many spreads on the change's side is back in its band
  std::size_t clear_runs = 3;  // runs in a row back in the band that clear a change
  // The baseline grows with the runs judged against it (doubling, while no change is building up)
  // to at most this many runs.
  std::size_t max_baseline_runs = 200;
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
  std::size_t began = 0;                 // index of the first run of the change
  std::size_t flagged = 0;               // index of the run at which the sum crossed the threshold
  std::optional<std::size_t> cleared{};  // index of the run that cleared it; empty while it is open
  bool lower = false;                    // the value went down (bandwidth lost; for a time, faster)
  Baseline baseline;                     // what the runs were judged against
  double changed_median = 0;  // median of the runs from `began` to the last before it cleared (or the latest)
  double ratio() const { return baseline.median > 0 ? changed_median / baseline.median : 0; }
};

struct DriftScan {
  std::vector<DriftChange> changes;  // in the order they were flagged
  Baseline current;                  // what the latest run is judged against (zero runs: too short)
};

// Every change in `values` (all > 0), in order, and the baseline of the latest run. Fewer than
// baseline_runs + 1 values: no change.
DriftScan scan_drift(std::span<const double> values, const DriftSettings& settings = {});
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
  std::vector<DriftChange> changes;  // open and cleared, in the order they were flagged
  // What the latest run is judged against: an open finding's baseline, else the current one.
  double baseline_median = 0;
  // The latest change that made the series worse and is not cleared: the series is degraded now,
  // a finding (and its host on a drain list). Cleared ones are history.
  std::optional<DriftChange> open_change;
  // The open change in words: ratio, the run it began at and when, the run that flagged it.
  std::string evidence;
};

SeriesDrift judge_series(const RunSeries& series, const DriftSettings& settings = {});

// What `history` and the trend page write beside run `index`: the changes that began, were flagged
// or were cleared there ("change began (lower 0.850 x baseline)", "flagged, 2 runs after it began",
// "cleared: 3 runs back within the band").
std::string drift_marks(const SeriesDrift& drift, std::size_t index, const DriftSettings& settings = {});

}  // namespace fb::diagnosis
