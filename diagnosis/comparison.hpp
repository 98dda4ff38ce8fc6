#pragma once
// Two result sets side by side (two clusters, or one before and after a fix): per op and size the
// ratio of B to A, the geometric mean per op, and which differences exceed the run-to-run spread.

#include "results/result_row.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb::diagnosis {

enum class Significance {
  within_spread,  // |ratio - 1| is inside the combined run-to-run spread: may be noise
  beyond_spread,  // larger than the spread of both sides together: a real difference
  // A side recorded no spread (one time per size, as nccl-tests and OSU logs): the spread is not
  // available and the ratio is judged against default_noise_bound_fraction instead.
  within_default_bound,
  beyond_default_bound,
};

// The bound a ratio is judged against when a side has no recorded spread: 10%, the margin
// nccl-tests' own average-bandwidth check allows (FAILED below 0.9 of its target), and above
// the run-to-run variation of large messages on a healthy fabric.
inline constexpr double default_noise_bound_fraction = 0.10;

bool spread_recorded(Significance significance);
std::string_view name_of(Significance significance);

struct ComparedRow {
  ResultRow a;
  ResultRow b;
  double time_ratio_b_over_a = 0;  // median time of B / median time of A: < 1 means B is faster
  double spread_fraction = 0;      // run_to_run_spread(a) + run_to_run_spread(b), or the default bound
  Significance significance = Significance::within_default_bound;
  bool regression = false;  // is_regression: B slower beyond the spread
  bool too_noisy = false;   // too_noisy_to_compare
  // The repetitions each side's time rests on: with more than one, its time is the median of the
  // repetitions' medians and its spread theirs (repetition_spread); with one, the row's own.
  std::size_t repetitions_a = 1;
  std::size_t repetitions_b = 1;
};

struct OpComparison {
  std::string op;
  std::vector<ComparedRow> rows;  // ordered by placement, then size
  double geomean_time_ratio_b_over_a = 0;
  std::size_t regressions = 0;  // rows with `regression`
  std::size_t too_noisy = 0;    // rows with `too_noisy`
};

struct Comparison {
  std::vector<OpComparison> ops;  // ordered by op name
  std::size_t only_in_a = 0;      // rows with no counterpart in the other set
  std::size_t only_in_b = 0;
  std::size_t duplicates_merged = 0;  // rows dropped because a side held several for one key
  std::size_t regressions = 0;        // over every op
  std::size_t too_noisy = 0;
};

// The relative run-to-run spread of one row: the larger of its coefficient of variation and of
// how far its p99 lies above its median (p99 / median - 1). The CV describes the bulk of the
// iterations; the tail term catches rare slow iterations that a CV over 20 samples understates.
// Empty when the row records no spread (min == max and CV 0: a single reported time), or when
// its source reported neither the CV nor the p99.
std::optional<double> run_to_run_spread(const ResultRow& row);

// The run-to-run spread of repetitions of one measurement, from their median times: the
// interquartile range over the median from four repetitions on (1.35 sigma for normal noise, and
// untouched by one odd repetition), the range over the median for two or three. Empty for fewer.
std::optional<double> repetition_spread(std::vector<double> median_times_us);

// Rows match on op, dtype, redop, placement, rank count, size and endpoints (src/dst ranks, or
// hosts where a row has no ranks). When a side holds several rows for one key and each carries a
// repetition number (a campaign's or `run --repeat`'s folder), they are one measurement repeated:
// like is compared with like, the median of their median times against the other side's, judged
// against repetition_spread. Several rows without repetition numbers (several runs in a
// directory): the one with the smallest median time counts, the best the fabric achieved.
// A difference is beyond the spread when the ratio leaves [1 / (1 + s), 1 + s], s being the sum of
// both sides' spreads: each median can be off by about its own spread, in opposite directions.
Comparison compare_results(std::span<const ResultRow> a, std::span<const ResultRow> b);

// A combined spread of 100% or more: the noise window [1/2, 2] hides any change up to 2x, so the
// two runs cannot be judged against each other at that size, whatever their ratio says.
inline constexpr double too_noisy_spread_fraction = 1.0;
bool too_noisy_to_compare(const ComparedRow& row);
std::size_t count_too_noisy(const Comparison& comparison);

// B slower than A beyond the spread (or, without one, beyond the default bound).
bool is_regression(const ComparedRow& row);
std::size_t count_regressions(const Comparison& comparison);

}  // namespace fb::diagnosis
