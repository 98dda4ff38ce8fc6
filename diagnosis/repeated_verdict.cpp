#include "diagnosis/repeated_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
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
  const double log_half_n = -static_cast<double>(n) * std::numbers::ln2;
  const double log_n_factorial = std::lgamma(static_cast<double>(n) + 1);
  double cdf = 0;
  std::size_t k = 0;
  while (k < n) {
    cdf += std::exp(log_n_factorial - std::lgamma(static_cast<double>(k) + 1) -
                    std::lgamma(static_cast<double>(n - k) + 1) + log_half_n);
    if (cdf > alpha) break;
    ++k;
  }
  return k;
}

// The standard normal quantile of 1 - alpha, by bisection on the complementary error function:
// only for the estimate of repetitions needed, where three digits are plenty.
double normal_upper_quantile(double alpha) {
  double low = 0;
  double high = 12;
  for (int step = 0; step < 60; ++step) {
    const double mid = (low + high) / 2;
    (0.5 * std::erfc(mid / std::numbers::sqrt2) > alpha ? low : high) = mid;
  }
  return (low + high) / 2;
}

double median_of_sorted(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

// Repetitions that would make the bound clear the limit, from the normal approximation of the
// median's spread: the bound sits about z * sqrt(pi/2) * sigma / sqrt(n) from the median, with
// sigma estimated robustly as 1.4826 x the median absolute deviation.
std::optional<std::size_t> repetitions_to_decide(const std::vector<double>& sorted, double median, double limit,
                                                 double alpha) {
  const double distance = std::abs(median - limit);
  if (distance == 0) return std::nullopt;
  std::vector<double> deviations;
  for (double x : sorted) deviations.push_back(std::abs(x - median));
  std::sort(deviations.begin(), deviations.end());
  const double sigma = 1.4826 * median_of_sorted(deviations);
  const double spread = normal_upper_quantile(alpha) * std::sqrt(std::numbers::pi / 2) * sigma / distance;
  const auto estimate = static_cast<std::size_t>(std::ceil(spread * spread));
  return std::max({fewest_repetitions_for(alpha), estimate, sorted.size() + 1});
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
  if (verdict.decision == Decision::inconclusive) {
    const bool looks_good = higher_is_better ? verdict.median >= limit : verdict.median <= limit;
    verdict.repetitions_needed =
        repetitions_to_decide(sorted, verdict.median, limit, looks_good ? risk.alpha_pass : risk.alpha_fail);
  }
  return verdict;
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
  const std::string needed = verdict.repetitions_needed
                                 ? fmt::format("about {} repetitions would decide", *verdict.repetitions_needed)
                                 : std::string("the median sits on the limit: no number of repetitions decides");
  return fmt::format("INCONCLUSIVE: {}; the confidence bounds ({}, {}) straddle the {}; {}", measured,
                     bound_text(verdict.lower, "lower"), bound_text(verdict.upper, "upper"), limit_text, needed);
}

}  // namespace fb::diagnosis
