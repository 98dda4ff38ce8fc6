#include "diagnosis/acceptance.hpp"

#include "diagnosis/host_outliers.hpp"
#include "common/errors.hpp"
#include "common/input_error.hpp"
#include "common/op_catalog.hpp"
#include "common/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace fb::diagnosis {
namespace {

std::vector<const ResultRow*> select_rows(const RowSelection& selection, std::span<const ResultRow> rows) {
  std::vector<const ResultRow*> selected;
  for (const ResultRow& row : rows)
    if (selects(selection, row)) selected.push_back(&row);
  return selected;
}

// Per-host and per-pair checks judge bandwidth at one size: small messages measure latency, and
// mixing sizes would make every host look alike. Unless the check names a size, the largest wins.
std::vector<const ResultRow*> at_largest_size(std::vector<const ResultRow*> rows) {
  std::uint64_t largest = 0;
  for (const ResultRow* row : rows) largest = std::max(largest, row->bytes);
  std::erase_if(rows, [&](const ResultRow* row) { return row->bytes != largest; });
  return rows;
}

std::string unit_of(std::string_view metric) { return metric_higher_is_better(metric) ? "GB/s" : "us"; }

// NOLINTNEXTLINE(readability-function-cognitive-complexity): judges each row against the limit with the undefined, unreported and noisy cases counted apart, as the record prints them
CheckResult check_limit(const Check& check, std::span<const ResultRow> rows) {
  CheckResult result{check, CheckStatus::pass, {}, 0, {}};
  const bool at_least = check.kind == CheckKind::min_bandwidth;
  std::optional<double> worst;
  std::size_t undefined = 0;
  std::size_t unreported = 0;
  for (const ResultRow* row : select_rows(check.selection, rows)) {
    if (!reports_statistic(*row, check.metric)) {
      ++unreported;
      continue;
    }
    const std::optional<double> value = metric_value(*row, check.metric);
    if (!value) {
      ++undefined;
      continue;
    }
    ++result.rows_checked;
    if (!worst || (at_least ? *value < *worst : *value > *worst)) worst = value;
    if (at_least ? *value >= check.limit : *value <= check.limit) continue;
    result.findings.push_back(
        {.kind = "acceptance",
         .subject = describe_row(*row),
         .expected = check.limit,
         .measured = *value,
         .unit = unit_of(check.metric),
         .evidence = {fmt::format("{} {:.4g} {} {} {:.4g}", check.metric, *value, at_least ? "<" : ">",
                                  at_least ? "at least" : "at most", check.limit)}});
  }
  const std::string unit = unit_of(check.metric);
  if (unreported > 0 && result.findings.empty()) {
    result.status = CheckStatus::not_available;
    result.summary =
        fmt::format("not available: {} selected rows do not report {} (their source printed one time per "
                    "size){}",
                    unreported, check.metric,
                    result.rows_checked ? fmt::format("; {} rows that do are within the limit", result.rows_checked)
                                        : "");
    return result;
  }
  if (result.rows_checked == 0) {
    result.status = CheckStatus::fail;
    result.summary = undefined ? fmt::format("{} selected rows have no {} (one rank?)", undefined, check.metric)
                               : "no rows match: nothing was measured for this check";
    return result;
  }
  result.status = result.findings.empty() ? CheckStatus::pass : CheckStatus::fail;
  result.summary = fmt::format("{} of {} rows {}; worst {} {:.4g} {} (limit {} {:.4g} {})", result.findings.size(),
                               result.rows_checked, at_least ? "below the limit" : "above the limit", check.metric,
                               *worst, unit, at_least ? ">=" : "<=", check.limit, unit);
  return result;
}

CheckResult check_zero_wrong(const Check& check, std::span<const ResultRow> rows) {
  CheckResult result{check, CheckStatus::pass, {}, 0, {}};
  std::vector<ResultRow> selected;
  for (const ResultRow* row : select_rows(check.selection, rows)) selected.push_back(*row);
  result.rows_checked = selected.size();
  std::size_t unvalidated = 0;
  std::uint64_t wrong_total = 0;
  for (const ResultRow& row : selected) {
    if (row.wrong)
      wrong_total += *row.wrong;
    else
      ++unvalidated;
  }
  result.findings = find_wrong_results(selected);
  if (result.rows_checked == 0) {
    result.status = CheckStatus::fail;
    result.summary = "no rows match: nothing was measured for this check";
    return result;
  }
  // A row that was never validated (-c 0, or a log without the column) cannot show zero wrong.
  result.status = result.findings.empty() && unvalidated == 0 ? CheckStatus::pass : CheckStatus::fail;
  result.summary = fmt::format("{} wrong elements in {} rows{}", wrong_total, result.rows_checked,
                               unvalidated ? fmt::format("; {} rows were not validated", unvalidated) : "");
  return result;
}

CheckResult check_host_outliers(const Check& check, std::span<const ResultRow> rows) {
  CheckResult result{check, CheckStatus::pass, {}, 0, {}};
  std::vector<const ResultRow*> per_host = select_rows(check.selection, rows);
  std::erase_if(per_host, [&](const ResultRow* row) {
    return row->src_host.empty() || !metric_value(*row, check.metric).has_value();
  });
  if (!check.selection.bytes) per_host = at_largest_size(std::move(per_host));
  HostOutliers outliers = find_host_outliers(per_host, check.metric, check.max_modified_z);
  result.rows_checked = outliers.rows;
  if (outliers.hosts < 3) {
    result.status = CheckStatus::skip;
    result.summary =
        fmt::format("{} hosts with per-host rows: an outlier needs at least 3 to compare against", outliers.hosts);
    return result;
  }
  result.findings = std::move(outliers.findings);
  result.status = result.findings.empty() ? CheckStatus::pass : CheckStatus::fail;
  result.summary = fmt::format("{} of {} hosts are outliers (|modified z| > {:.2f}); peer median {} {:.4g} {}",
                               result.findings.size(), outliers.hosts, check.max_modified_z, check.metric,
                               outliers.peer_median, unit_of(check.metric));
  return result;
}

CheckResult check_pairwise(const Check& check, std::span<const ResultRow> rows) {
  CheckResult result{check, CheckStatus::pass, {}, 0, {}};
  std::vector<const ResultRow*> pairs = select_rows(check.selection, rows);
  std::erase_if(pairs, [](const ResultRow* row) { return !row->src_rank && row->src_host.empty(); });
  if (!check.selection.bytes) pairs = at_largest_size(std::move(pairs));
  const double required = check.limit * check.min_fraction;
  double lowest = 0;
  for (const ResultRow* row : pairs) {
    const double measured = *metric_value(*row, check.metric);
    lowest = result.rows_checked == 0 ? measured : std::min(lowest, measured);
    ++result.rows_checked;
    if (measured >= required) continue;
    result.findings.push_back(
        {.kind = "slow_pair",
         .subject = describe_row(*row),
         .expected = check.limit,
         .measured = measured,
         .unit = "GB/s",
         .evidence = {fmt::format("{} {:.4g} GB/s is {:.0f}% of the expected {:.4g} GB/s (needs {:.0f}%)", check.metric,
                                  measured, 100 * measured / check.limit, check.limit, 100 * check.min_fraction)}});
  }
  if (pairs.empty()) {
    result.status = CheckStatus::fail;
    result.summary = "no pairwise rows (src/dst) match: nothing was measured for this check";
    return result;
  }
  result.status = result.findings.empty() ? CheckStatus::pass : CheckStatus::fail;
  result.summary = fmt::format("{} of {} pairs under {:.0f}% of {:.4g} GB/s; lowest {:.4g} GB/s",
                               result.findings.size(), pairs.size(), 100 * check.min_fraction, check.limit, lowest);
  return result;
}

// An op that fabricbench does not know and no result row carries is a typo in the thresholds
// (all_reduse), not a measurement that is missing: the file is wrong, and it says where.
void reject_unknown_op(const Thresholds& thresholds, const Check& check, std::span<const ResultRow> rows) {
  const std::string& op = check.selection.op;
  if (op.empty() || find_op(op)) return;
  std::set<std::string> ops_in_results;
  for (const ResultRow& row : rows) ops_in_results.insert(row.op);
  if (ops_in_results.contains(op)) return;
  std::string known;
  for (const OpTraits& traits : all_ops()) known += fmt::format("{}{}", known.empty() ? "" : ", ", traits.name);
  for (const std::string& name : ops_in_results)
    if (!find_op(name)) known += ", " + name;
  throw input_error_at(thresholds.source.string(), static_cast<std::size_t>(check.line),
                       fmt::format("unknown op '{}' in check '{}' (known: {})", op, check.name, known));
}

}  // namespace

std::string_view name_of(CheckStatus status) {
  switch (status) {
    case CheckStatus::pass: return "pass";
    case CheckStatus::fail: return "FAIL";
    case CheckStatus::skip: return "skip";
    case CheckStatus::not_available: return "n/a";
  }
  return "unknown";
}

bool selects(const RowSelection& selection, const ResultRow& row) {
  if (!selection.op.empty() && row.op != selection.op) return false;
  if (selection.bytes && row.bytes != *selection.bytes) return false;
  if (selection.min_bytes && row.bytes < *selection.min_bytes) return false;
  if (selection.max_bytes && row.bytes > *selection.max_bytes) return false;
  if (selection.in_place && row.in_place != *selection.in_place) return false;
  return true;
}

bool AcceptanceVerdict::passed() const {
  return std::none_of(results.begin(), results.end(), [](const CheckResult& r) {
    return r.status == CheckStatus::fail || r.status == CheckStatus::not_available;
  });
}

AcceptanceVerdict evaluate_acceptance(const Thresholds& thresholds, std::span<const ResultRow> rows) {
  AcceptanceVerdict verdict;
  for (const Check& check : thresholds.checks) reject_unknown_op(thresholds, check, rows);
  for (const Check& check : thresholds.checks) {
    switch (check.kind) {
      case CheckKind::min_bandwidth:
      case CheckKind::max_latency: verdict.results.push_back(check_limit(check, rows)); break;
      case CheckKind::zero_wrong: verdict.results.push_back(check_zero_wrong(check, rows)); break;
      case CheckKind::no_host_outlier: verdict.results.push_back(check_host_outliers(check, rows)); break;
      case CheckKind::pairwise_bandwidth: verdict.results.push_back(check_pairwise(check, rows)); break;
      case CheckKind::planned_work: break;  // judged by judge_acceptance from the plan, not from rows
    }
  }
  return verdict;
}

}  // namespace fb::diagnosis
