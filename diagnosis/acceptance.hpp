#pragma once
// Runs the checks of a thresholds file against result rows: pass, fail or skip per check, with
// the findings behind every failure.

#include "diagnosis/thresholds.hpp"
#include "diagnosis/finding.hpp"
#include "results/result_row.hpp"

#include <span>
#include <string>
#include <vector>

namespace fb::diagnosis {

// not_available: the check's statistic is one the results' source never reported (the p99 of an
// imported nccl-tests or OSU log). It is not a pass: the verdict does not pass with one.
enum class CheckStatus { pass, fail, skip, not_available };
std::string_view name_of(CheckStatus status);

struct CheckResult {
  Check check;
  CheckStatus status = CheckStatus::fail;
  std::string summary;  // one line: what was measured against what
  std::size_t rows_checked = 0;
  std::vector<Finding> findings;  // one per offending row, host or pair
};

struct AcceptanceVerdict {
  std::vector<CheckResult> results;
  bool passed() const;
};

// A check that selects no rows fails: acceptance cannot pass on data that was never measured.
// A check naming an op that is neither fabricbench's nor in the rows is a typo: throws InputError
// "FILE:LINE: unknown op ..." before any check runs.
// A limit on a time statistic that selected rows do not report is not available, unless another
// selected row already fails it.
// The exception is no_host_outlier without per-host rows (src_host/dst_host): it is skipped,
// because collective rows say nothing about single hosts.
AcceptanceVerdict evaluate_acceptance(const Thresholds& thresholds, std::span<const ResultRow> rows);

bool selects(const RowSelection& selection, const ResultRow& row);

}  // namespace fb::diagnosis
