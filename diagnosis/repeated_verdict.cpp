#include "diagnosis/repeated_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <span>
#include <vector>

namespace fb::diagnosis {
namespace {

// P(Binomial(n, 1/2) <= k), summed in log space so that thousands of repetitions do not overflow.
double binomial_half_cdf(std::size_t k, std::size_t n) {
  const double log_half_n = -static_cast<double>(n) * std::numbers::ln2;
  const double log_n_factorial = std::lgamma(static_cast<double>(n) + 1);
  double sum = 0;
  for (std::size_t i = 0; i <= k && i <= n; ++i)
    sum += std::exp(log_n_factorial - std::lgamma(static_cast<double>(i) + 1) -
                    std::lgamma(static_cast<double>(n - i) + 1) + log_half_n);
  return std::min(sum, 1.0);
}

// The rank k (1-based) of the order statistic that bounds the median at risk alpha: the largest k
// with P(Binomial(n, 1/2) <= k - 1) <= alpha; 0 when even the extreme value does not. One pass
// over the binomial terms.
std::size_t bounding_rank(std::size_t n, double alpha) {
  // log P(B = k), from log P(B = 0) = -n ln 2 by P(B = k + 1) / P(B = k) = (n - k) / (k + 1).
  double log_term = -static_cast<double>(n) * std::numbers::ln2;
  double cdf = 0;
  std::size_t k = 0;
  while (k < n) {
    cdf += std::exp(log_term);
    if (cdf > alpha) break;
    log_term += std::log(static_cast<double>(n - k) / static_cast<double>(k + 1));
    ++k;
  }
  return k;
}

double median_of_sorted(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

// P(C <= k) for C ~ Beta-Binomial(m, a, b): the number of m new repetitions on one side of the
// limit when the chance of that side is itself uncertain, Beta(a, b).
double beta_binomial_cdf(std::ptrdiff_t k, std::size_t m, double a, double b) {
  if (k < 0) return 0;
  const auto md = static_cast<double>(m);
  // log P(C = 0) = log B(a, m + b) - log B(a, b); then P(C = j + 1) / P(C = j) =
  // (m - j) (j + a) / ((j + 1) (m - j - 1 + b)).
  double log_term = std::lgamma(md + b) + std::lgamma(a + b) - std::lgamma(md + a + b) - std::lgamma(b);
  double sum = 0;
  for (std::size_t j = 0; j <= static_cast<std::size_t>(k) && j <= m; ++j) {
    sum += std::exp(log_term);
    const auto jd = static_cast<double>(j);
    log_term += std::log((md - jd) * (jd + a) / ((jd + 1) * (md - jd - 1 + b)));
  }
  return std::min(sum, 1.0);
}

// bounding_rank, remembered per thread: the estimate below asks the same few counts (the cap, and
// the doublings from n + 1) of every undecided measurement of a check.
std::size_t remembered_bounding_rank(std::size_t n, double alpha) {
  thread_local std::map<std::pair<std::size_t, double>, std::size_t> ranks;
  constexpr std::size_t most_remembered = 4096;
  const auto [it, added] = ranks.try_emplace({n, alpha}, 0);
  if (!added) return it->second;
  it->second = bounding_rank(n, alpha);
  const std::size_t rank = it->second;
  if (ranks.size() > most_remembered) ranks.clear();
  return rank;
}

// The probability that a run of m repetitions decides (PASS or FAIL), given that `bad` of the n
// observed ones lay on the failing side of the limit. A run of m PASSes when at most k_pass - 1 of
// its values fall on the failing side and FAILs when at most k_fail - 1 fall on the keeping side
// (the order-statistic bounds above), so only the count on each side matters, whatever the shape
// of the noise. The chance of the failing side is taken from the observed repetitions as a
// Bayesian bootstrap with Jeffreys' prior, Beta(bad + 1/2, n - bad + 1/2): a resample of the
// observed repetitions whose weights are themselves uncertain, so that ten repetitions do not
// pass for a precise estimate.
double probability_to_decide(std::size_t m, std::size_t bad, std::size_t n, DecisionRisk risk) {
  const double a = static_cast<double>(bad) + 0.5;
  const double b = static_cast<double>(n - bad) + 0.5;
  const auto k_pass = static_cast<std::ptrdiff_t>(remembered_bounding_rank(m, risk.alpha_pass));
  const auto k_fail = static_cast<std::ptrdiff_t>(remembered_bounding_rank(m, risk.alpha_fail));
  return beta_binomial_cdf(k_pass - 1, m, a, b) + beta_binomial_cdf(k_fail - 1, m, b, a);
}

// The fewest repetitions a new run needs to decide with probability `target_probability_to_decide`
// (probability_to_decide), searched by doubling then halving up to `most_repetitions_estimated`;
// empty when even that many would not (the median sits on the limit, or next to it).
std::optional<std::size_t> repetitions_to_decide(std::span<const double> samples, double limit, bool higher_is_better,
                                                 DecisionRisk risk) {
  const std::size_t n = samples.size();
  const auto bad = static_cast<std::size_t>(std::count_if(samples.begin(), samples.end(), [&](double x) {
    return higher_is_better ? x < limit : x > limit;
  }));
  const auto decides = [&](std::size_t m) {
    return probability_to_decide(m, bad, n, risk) >= target_probability_to_decide;
  };
  std::size_t low = std::max(n + 1, fewest_repetitions_for(std::min(risk.alpha_pass, risk.alpha_fail)));
  // Most undecided measurements sit near the limit: one look at the cap settles those.
  if (low > most_repetitions_estimated || !decides(most_repetitions_estimated)) return std::nullopt;
  if (decides(low)) return low;
  std::size_t high = low;
  while (!decides(high)) {
    if (high == most_repetitions_estimated) return std::nullopt;
    low = high;
    high = std::min(most_repetitions_estimated, 2 * high);
  }
  // decides(high) and not decides(low): halve the gap.
  while (high - low > 1) {
    const std::size_t mid = low + (high - low) / 2;
    (decides(mid) ? high : low) = mid;
  }
  return high;
}

}  // namespace

std::string_view name_of(Decision decision) {
  switch (decision) {
    case Decision::pass: return "PASS";
    case Decision::fail: return "FAIL";
    case Decision::inconclusive: return "INCONCLUSIVE";
  }
  return "unknown";
}

std::size_t fewest_repetitions_for(double alpha) {
  std::size_t n = 1;
  while (std::ldexp(1.0, -static_cast<int>(n)) > alpha) ++n;
  return n;
}

SampleVerdict judge_against_limit(std::span<const double> samples, double limit, bool higher_is_better,
                                  DecisionRisk risk) {
  SampleVerdict verdict;
  verdict.samples = samples.size();
  if (samples.empty()) return verdict;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  verdict.median = median_of_sorted(sorted);

  // Bandwidth: a PASS rests on the lower bound, a FAIL on the upper; times the other way round.
  const double alpha_lower = higher_is_better ? risk.alpha_pass : risk.alpha_fail;
  const double alpha_upper = higher_is_better ? risk.alpha_fail : risk.alpha_pass;
  const std::size_t k_lower = bounding_rank(n, alpha_lower);
  const std::size_t k_upper = bounding_rank(n, alpha_upper);
  if (k_lower > 0) verdict.lower = sorted[k_lower - 1];
  if (k_upper > 0) verdict.upper = sorted[n - k_upper];

  const auto error_at = [&](std::size_t k) { return binomial_half_cdf(k - 1, n); };
  if (higher_is_better) {
    if (verdict.lower && *verdict.lower >= limit) {
      verdict.decision = Decision::pass;
      verdict.error_probability = error_at(k_lower);
    } else if (verdict.upper && *verdict.upper < limit) {
      verdict.decision = Decision::fail;
      verdict.error_probability = error_at(k_upper);
    }
  } else {
    if (verdict.upper && *verdict.upper <= limit) {
      verdict.decision = Decision::pass;
      verdict.error_probability = error_at(k_upper);
    } else if (verdict.lower && *verdict.lower > limit) {
      verdict.decision = Decision::fail;
      verdict.error_probability = error_at(k_lower);
    }
  }
  if (verdict.decision == Decision::inconclusive)
    verdict.repetitions_needed = repetitions_to_decide(sorted, limit, higher_is_better, risk);
  return verdict;
}

std::string repetitions_needed_text(std::optional<std::size_t> needed) {
  if (needed)
    return fmt::format("about {} repetitions would decide (estimated; at most {} estimated)", *needed,
                       most_repetitions_estimated);
  return fmt::format("the median sits on the limit or next to it: no run of up to {} repetitions is estimated to "
                     "decide",
                     most_repetitions_estimated);
}

std::string describe(const SampleVerdict& verdict, double limit, bool higher_is_better, std::string_view unit) {
  const std::string limit_text = fmt::format("limit {} {:.4g} {}", higher_is_better ? ">=" : "<=", limit, unit);
  const std::string measured = fmt::format("median {:.4g} {} over {} repetition{}", verdict.median, unit,
                                           verdict.samples, verdict.samples == 1 ? "" : "s");
  const auto bound_text = [&](std::optional<double> bound, std::string_view side) {
    return bound ? fmt::format("{} {:.4g} {}", side, *bound, unit) : fmt::format("no {} bound", side);
  };
  switch (verdict.decision) {
    case Decision::pass:
    case Decision::fail: {
      const bool on_lower = (verdict.decision == Decision::pass) == higher_is_better;
      return fmt::format("{}: {}; with {:.1f}% confidence the median is {} ({})", name_of(verdict.decision), measured,
                         100 * (1 - verdict.error_probability.value_or(1)),
                         bound_text(on_lower ? verdict.lower : verdict.upper, on_lower ? "at least" : "at most"),
                         limit_text);
    }
    case Decision::inconclusive: break;
  }
  const std::string needed = repetitions_needed_text(verdict.repetitions_needed);
  return fmt::format("INCONCLUSIVE: {}; the confidence bounds ({}, {}) straddle the {}; {}", measured,
                     bound_text(verdict.lower, "lower"), bound_text(verdict.upper, "upper"), limit_text, needed);
}

}  // namespace fb::diagnosis
