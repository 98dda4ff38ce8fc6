#pragma once
// The cluster's own history as the expectation: rows judged against the same measurements (op,
// type, placement, ranks, size, endpoints) in earlier runs of the run store, for `accept`,
// `compare` and `campaign --baseline`.
//
// Method (docs/fleet-health.md, "Judging against a baseline"):
//   - A row's value is its busbw (algbw where it has none); a latency op's value is its median time.
//   - Each baseline run gives one value per measurement: the median of that run's rows for it
//     (placements repeated, soak repetitions). The baseline is the median m of those run values.
//   - The spread s is the run-to-run spread: 1.4826 x the median absolute deviation of log(value)
//     over the baseline runs, floored at 0.5% (diagnosis/drift.hpp's baseline_of), and at the
//     rows' own uncertainty of their median (the median over rows of s x sqrt(pi / 2 iterations),
//     s the CV or, smaller where slow outliers inflate the CV, 1 - fastest / median iteration):
//     a few runs that agree by chance do not make a noisy measurement exact. It needs at least 3
//     runs; with fewer, the rows' own spread (coefficient of variation and p99 tail,
//     comparison.hpp's run_to_run_spread) of the baseline and the judged rows, summed, stands in,
//     and the statement says so. Rows with no spread at all (one time per size, imported logs)
//     cannot be judged: INCONCLUSIVE.
//   - The judged value is the median of the judged rows for the measurement; r = log(value / m)
//     for bandwidths, log(m / value) for times, so r < 0 is always worse. Its uncertainty is
//     sigma = s sqrt(1 + pi / (2n)) with n baseline runs (one new run drawn from the baseline's
//     distribution, against a median of n runs), or the summed row spreads.
//   - PASS when r - z sigma >= log(1 - tolerance): at most `tolerance` worse, with the confidence
//     asked. FAIL when r + z' sigma < log(1 - tolerance): worse than the tolerance even at the good
//     end of the noise. Otherwise INCONCLUSIVE: the noise cannot tell. z is the normal quantile
//     of (1 + confidence) / 2; z' uses (1 - confidence) / 2 divided by the number of measurements
//     (Bonferroni), so that many measurements do not multiply false rejects.

#include "diagnosis/check_verdicts.hpp"
#include "diagnosis/repeated_verdict.hpp"
#include "results/results_io.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb::diagnosis {

struct BaselineSettings {
  // How much worse than the baseline a measurement may be and still pass: 10%, the bound
  // comparison.hpp uses when no spread is recorded (nccl-tests' own check allows the same).
  double tolerance = 0.10;
  double confidence = 0.95;  // false accepts and false rejects each at most (1 - confidence) / 2
};

struct BaselineMeasurement {
  ResultRow first;  // the judged measurement's first row: op, size, placement, endpoints
  std::string subject;
  std::string value_name;  // busbw, algbw, time
  std::string unit;        // GB/s, us
  bool higher_is_better = true;
  double measured = 0;  // median of the judged rows
  std::size_t judged_rows = 0;
  double baseline_median = 0;  // median of the baseline runs' values
  std::size_t baseline_runs = 0;
  // Uncertainty of log(measured / baseline), in log units; empty when no spread is known.
  std::optional<double> log_sigma;
  std::string spread_source;          // "across 12 runs", "within the runs' iterations (2 runs)", "none recorded"
  double ratio = 0;                   // goodness: measured / baseline for bandwidths, baseline / measured for times
  std::optional<double> ratio_lower;  // confidence bounds of the ratio (pass side, fail side)
  std::optional<double> ratio_upper;
  Decision decision = Decision::inconclusive;
  std::string statement;  // one line: the decision with its numbers
};

struct BaselineVerdict {
  Decision decision = Decision::inconclusive;
  std::vector<BaselineMeasurement> measurements;  // in the judged rows' order of first appearance
  std::size_t unmatched = 0;                      // judged measurements the baseline does not hold
  std::vector<std::string> baseline_run_ids;
  std::string statement;  // one line for the whole judgement
  double tolerance = 0;
};

// `baseline`: earlier runs (none of the judged ones). No measurement in common: INCONCLUSIVE, since
// nothing was judged.
BaselineVerdict judge_against_baseline(std::span<const ResultRow> rows, std::span<const ResultSet> baseline,
                                       const BaselineSettings& settings = {});

// The judgement as checks for the campaign record: one per op, its measurements as ratios to the
// baseline ("x baseline") against the limit 1 - tolerance. `origin` names the baseline.
std::vector<CheckVerdict> baseline_check_verdicts(const BaselineVerdict& verdict, const std::string& origin);

// The standard normal quantile (the x with P(Z <= x) = p), for 0 < p < 1.
double normal_quantile(double p);

}  // namespace fb::diagnosis
