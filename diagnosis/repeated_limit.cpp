#include "diagnosis/repeated_limit.hpp"

#include "common/sizes.hpp"
#include "diagnosis/finding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace fb::diagnosis {
namespace {

std::string subject_of(const ResultRow& row) {
  std::string text =
      fmt::format("{} {} {}", row.op, format_size_bytes(row.bytes), row.in_place ? "in-place" : "out-of-place");
  text += describe_participants(row);
  if (row.concurrent_flows.value_or(1) > 1) text += fmt::format(", {} flows at once", *row.concurrent_flows);
  return text;
}

}  // namespace

std::string measurement_key(const ResultRow& row) {
  const auto number = [](const std::optional<int>& value) { return value ? std::to_string(*value) : "-"; };
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", row.backend, row.op, row.dtype, row.redop,
                     number(row.root), row.in_place, row.nranks, row.bytes, number(row.src_rank), number(row.dst_rank),
                     row.src_host, row.dst_host, row.src_device, row.dst_device, number(row.concurrent_flows),
                     row.nodes);
}

RepeatedLimitVerdict judge_over_repetitions(std::span<const ResultRow> rows, const RepeatedLimit& check) {
  struct Samples {
    const ResultRow* first = nullptr;
    std::vector<double> values;
  };
  std::vector<Samples> measurements;
  std::map<std::string, std::size_t> index_of;
  RepeatedLimitVerdict result;
  for (const ResultRow& row : rows) {
    if (!check.selects(row)) continue;
    const std::optional<double> value = check.value(row);
    if (!value) continue;
    ++result.rows;
    const auto [it, added] = index_of.try_emplace(measurement_key(row), measurements.size());
    if (added) measurements.push_back({&row, {}});
    measurements[it->second].values.push_back(*value);
  }
  if (measurements.empty()) {
    result.statement = "no selected row has the checked value: nothing was measured for this check";
    return result;
  }
  const double alpha = (1 - check.confidence) / 2;
  const DecisionRisk risk{.alpha_pass = alpha, .alpha_fail = alpha / static_cast<double>(measurements.size())};
  std::size_t passed = 0;
  std::size_t failed = 0;
  std::size_t undecided_on_limit = 0;
  std::size_t needed = 0;
  for (const Samples& samples : measurements) {
    MeasurementVerdict verdict{*samples.first,
                               subject_of(*samples.first),
                               judge_against_limit(samples.values, check.limit, check.higher_is_better, risk),
                               {}};
    verdict.statement = describe(verdict.verdict, check.limit, check.higher_is_better, check.unit);
    switch (verdict.verdict.decision) {
      case Decision::pass: ++passed; break;
      case Decision::fail: ++failed; break;
      case Decision::inconclusive:
        if (verdict.verdict.repetitions_needed)
          needed = std::max(needed, *verdict.verdict.repetitions_needed);
        else
          ++undecided_on_limit;
        break;
    }
    result.measurements.push_back(std::move(verdict));
  }
  const std::size_t total = measurements.size();
  const std::size_t undecided = total - passed - failed;
  result.decision = failed > 0 ? Decision::fail : undecided > 0 ? Decision::inconclusive : Decision::pass;
  if (result.decision == Decision::inconclusive && undecided_on_limit == 0) result.repetitions_needed = needed;
  const std::string rates = fmt::format("false accept <= {:.1f}%, false reject <= {:.1f}%", 100 * alpha, 100 * alpha);
  switch (result.decision) {
    case Decision::pass:
      result.statement = fmt::format("PASS: all {} measurements keep the limit with {:.1f}% confidence each ({})",
                                     total, 100 * (1 - alpha), rates);
      break;
    case Decision::fail:
      result.statement = fmt::format("FAIL: {} of {} measurements break the limit with {:.1f}% confidence ({})", failed,
                                     total, 100 * (1 - risk.alpha_fail), rates);
      break;
    case Decision::inconclusive:
      result.statement =
          fmt::format("INCONCLUSIVE: {} of {} measurements pass, {} cannot be decided by their repetitions at {:.0f}% "
                      "confidence; {}",
                      passed, total, undecided, 100 * check.confidence,
                      result.repetitions_needed
                          ? repetitions_needed_text(result.repetitions_needed)
                          : fmt::format("{} sit on the limit or next to it: no run of up to {} repetitions is "
                                        "estimated to decide",
                                        undecided_on_limit, most_repetitions_estimated));
      break;
  }
  return result;
}

}  // namespace fb::diagnosis
