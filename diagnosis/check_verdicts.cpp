#include "diagnosis/check_verdicts.hpp"

#include "common/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace fb::diagnosis {
namespace {

using diagnosis::Decision;

CheckVerdict from_repeated(const Check& check, std::string origin, diagnosis::RepeatedLimitVerdict judged,
                           const diagnosis::RepeatedLimit& limit) {
  CheckVerdict verdict;
  verdict.check = check;
  verdict.origin = std::move(origin);
  verdict.decision = judged.decision;
  verdict.statement = std::move(judged.statement);
  verdict.repetitions_needed = judged.repetitions_needed;
  verdict.rows = judged.rows;
  verdict.measurements = std::move(judged.measurements);
  verdict.unit = limit.unit;
  verdict.higher_is_better = limit.higher_is_better;
  verdict.limit = limit.limit;
  return verdict;
}

CheckVerdict judge_limit(const Check& check, const std::string& origin, std::span<const ResultRow> rows,
                         double confidence) {
  const std::string metric = check.metric;
  const diagnosis::RepeatedLimit limit{
      .selects = [&](const ResultRow& row) { return selects(check.selection, row) && reports_statistic(row, metric); },
      .value = [&](const ResultRow& row) { return metric_value(row, metric); },
      .limit = check.limit,
      .higher_is_better = metric_higher_is_better(metric),
      .unit = metric_higher_is_better(metric) ? "GB/s" : "us",
      .confidence = confidence};
  CheckVerdict verdict = from_repeated(check, origin, diagnosis::judge_over_repetitions(rows, limit), limit);
  const auto unreported = std::count_if(rows.begin(), rows.end(), [&](const ResultRow& row) {
    return selects(check.selection, row) && !reports_statistic(row, metric);
  });
  // A statistic the source never printed (the p99 of an imported log) cannot be judged either way.
  if (verdict.rows == 0 && unreported > 0) {
    verdict.decision = Decision::inconclusive;
    verdict.statement = fmt::format("INCONCLUSIVE: not available: {} selected rows do not report {} (their source "
                                    "printed one time per size)",
                                    unreported, metric);
  }
  return verdict;
}

// Each pair against its share of the expected bandwidth, at the largest selected size unless the
// check names one: small messages measure latency, not the pair's link.
CheckVerdict judge_pairwise(const Check& check, const std::string& origin, std::span<const ResultRow> rows,
                            double confidence) {
  const auto is_pair = [&](const ResultRow& row) {
    return selects(check.selection, row) && (row.src_rank || !row.src_host.empty());
  };
  std::uint64_t largest = 0;
  for (const ResultRow& row : rows)
    if (is_pair(row)) largest = std::max(largest, row.bytes);
  const bool any_size = check.selection.bytes.has_value();
  const diagnosis::RepeatedLimit limit{
      .selects = [&](const ResultRow& row) { return is_pair(row) && (any_size || row.bytes == largest); },
      .value = [&](const ResultRow& row) { return metric_value(row, check.metric); },
      .limit = check.limit * check.min_fraction,
      .higher_is_better = true,
      .unit = "GB/s",
      .confidence = confidence};
  return from_repeated(check, origin, diagnosis::judge_over_repetitions(rows, limit), limit);
}

// Element counts and host comparisons: acceptance.hpp's rule, which repetitions do not change.
CheckVerdict from_acceptance_rule(CheckResult result, const std::string& origin) {
  CheckVerdict verdict;
  verdict.check = result.check;
  verdict.origin = origin;
  verdict.rows = result.rows_checked;
  verdict.findings = std::move(result.findings);
  verdict.skipped = result.status == CheckStatus::skip;
  verdict.decision = result.status == CheckStatus::pass || verdict.skipped ? Decision::pass
                     : result.status == CheckStatus::not_available         ? Decision::inconclusive
                                                                           : Decision::fail;
  const std::string_view rule = result.check.kind == CheckKind::zero_wrong
                                    ? "every element checked: a count, not a sample"
                                    : "hosts against their peers by the modified z-score, no repetitions needed";
  verdict.statement =
      fmt::format("{}: {} ({})", verdict.skipped ? "SKIPPED" : name_of(verdict.decision), result.summary, rule);
  return verdict;
}

}  // namespace

std::vector<CheckVerdict> judge_checks(const Thresholds& thresholds, std::span<const ResultRow> rows,
                                       double confidence) {
  // Throws for an unknown op (a typo in the file) before anything is judged; its results are the
  // verdicts of the checks that repetitions do not decide.
  AcceptanceVerdict fixed_rule = evaluate_acceptance(thresholds, rows);
  std::vector<CheckVerdict> verdicts;
  for (std::size_t i = 0; i < thresholds.checks.size(); ++i) {
    const Check& check = thresholds.checks[i];
    const std::string origin = fmt::format("{}:{}", thresholds.source.filename().string(), check.line);
    switch (check.kind) {
      case CheckKind::min_bandwidth:
      case CheckKind::max_latency: verdicts.push_back(judge_limit(check, origin, rows, confidence)); break;
      case CheckKind::pairwise_bandwidth: verdicts.push_back(judge_pairwise(check, origin, rows, confidence)); break;
      case CheckKind::zero_wrong:
      case CheckKind::no_host_outlier:
        verdicts.push_back(from_acceptance_rule(std::move(fixed_rule.results[i]), origin));
        break;
      case CheckKind::planned_work: break;  // never in a thresholds file: judge_acceptance adds it
    }
  }
  return verdicts;
}

std::vector<CheckVerdict> judge_model_checks(std::span<const ResultRow> rows, double fraction, std::uint64_t min_bytes,
                                             double confidence) {
  std::set<std::string> ops;
  for (const ResultRow& row : rows)
    if (row.expected_busbw_gbps && *row.expected_busbw_gbps > 0 && row.busbw_gbps && !row.src_rank &&
        row.bytes >= min_bytes)
      ops.insert(row.op);
  std::vector<CheckVerdict> verdicts;
  for (const std::string& op : ops) {
    Check check;
    check.name =
        fmt::format("{} busbw >= {:.0f}% of the model at >= {}", op, 100 * fraction, format_size_bytes(min_bytes));
    check.kind = CheckKind::min_bandwidth;
    check.selection.op = op;
    check.selection.min_bytes = min_bytes;
    check.metric = "busbw_gbps";
    check.limit = fraction;
    const diagnosis::RepeatedLimit limit{.selects =
                                             [&](const ResultRow& row) {
                                               return selects(check.selection, row) && !row.src_rank &&
                                                      row.expected_busbw_gbps.value_or(0) > 0;
                                             },
                                         .value = [](const ResultRow& row) -> std::optional<double> {
                                           if (!row.busbw_gbps) return std::nullopt;
                                           return *row.busbw_gbps / *row.expected_busbw_gbps;
                                         },
                                         .limit = fraction,
                                         .higher_is_better = true,
                                         .unit = "x model",
                                         .confidence = confidence};
    verdicts.push_back(from_repeated(check, "topology model", diagnosis::judge_over_repetitions(rows, limit), limit));
  }
  return verdicts;
}

Decision overall_decision(std::span<const CheckVerdict> verdicts) {
  if (verdicts.empty()) return Decision::inconclusive;
  const auto any = [&](Decision decision) {
    return std::any_of(verdicts.begin(), verdicts.end(),
                       [&](const CheckVerdict& v) { return !v.skipped && v.decision == decision; });
  };
  if (any(Decision::fail)) return Decision::fail;
  if (any(Decision::inconclusive)) return Decision::inconclusive;
  return Decision::pass;
}

}  // namespace fb::diagnosis
