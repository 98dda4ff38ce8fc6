#pragma once
// Verdicts that repetitions can support: whether the typical value of a measurement (the median of
// its distribution over repetitions) is on the good side of a limit, decided with a stated
// confidence, or INCONCLUSIVE when the repetitions cannot tell, with how many would.
//
// Method (docs/acceptance.md, "How a verdict is decided"): the distribution-free confidence bound
// of a median from order statistics. With n independent repetitions, the k-th smallest value lies
// above the true median with probability P(Binomial(n, 1/2) <= k - 1), whatever the distribution,
// so the largest k with that probability <= alpha gives a lower bound that errs at most alpha of
// the time (the upper bound mirrors it). A check PASSes when the one-sided bound on the bad side
// clears the limit, FAILs when the bound on the good side misses it, and is INCONCLUSIVE otherwise.
// Hence false accepts happen at most alpha_pass of the time and false rejects at most alpha_fail,
// for any distribution of the repetitions, skewed or heavy-tailed ones included.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace fb::diagnosis {

// "Repetitions that would decide": the fewest with which a new run decides (PASS or FAIL) at least
// this often, by the estimate; none is stated beyond most_repetitions_estimated.
inline constexpr double target_probability_to_decide = 0.9;
inline constexpr std::size_t most_repetitions_estimated = 1000;

enum class Decision { pass, fail, inconclusive };
std::string_view name_of(Decision decision);

struct DecisionRisk {
  // Largest probability of a PASS when the true median breaks the limit (false accept), and of a
  // FAIL when it keeps it (false reject).
  double alpha_pass = 0.025;
  double alpha_fail = 0.025;
};

struct SampleVerdict {
  Decision decision = Decision::inconclusive;
  std::size_t samples = 0;
  double median = 0;
  // One-sided confidence bounds of the true median: lower errs at most alpha_pass (bandwidths;
  // alpha_fail for times) and upper the other; empty when n is too small for any bound.
  std::optional<double> lower;
  std::optional<double> upper;
  // Probability that the bound the decision rests on is wrong (at most the alpha asked for): for
  // a PASS the false-accept risk, for a FAIL the false-reject risk; empty for INCONCLUSIVE.
  std::optional<double> error_probability;
  // INCONCLUSIVE: the repetitions a new run is estimated to need to decide, with probability
  // target_probability_to_decide, from the observed repetitions (a Bayesian bootstrap of the share
  // on each side of the limit: repeated_verdict.cpp, docs/acceptance.md); more than the n observed
  // and at least the fewest that can bound a median at the asked risk. Empty when no run of up to
  // most_repetitions_estimated is estimated to decide: the median sits on the limit or next to it.
  std::optional<std::size_t> repetitions_needed;
};

// `higher_is_better`: bandwidths (value >= limit keeps the limit); otherwise times (value <= limit).
SampleVerdict judge_against_limit(std::span<const double> samples, double limit, bool higher_is_better,
                                  DecisionRisk risk = {});

// The fewest repetitions for which an order statistic bounds the median at risk `alpha`:
// the smallest n with 2^-n <= alpha.
std::size_t fewest_repetitions_for(double alpha);

// "about 40 repetitions would decide (estimated; at most 1000 estimated)", or that the median sits on
// the limit when `needed` is empty.
std::string repetitions_needed_text(std::optional<std::size_t> needed);

// "PASS: median 9.31 GB/s over 10 repetitions; with 97.5% confidence at least 9.02 GB/s (limit >= 8)".
std::string describe(const SampleVerdict& verdict, double limit, bool higher_is_better, std::string_view unit);

}  // namespace fb::diagnosis
