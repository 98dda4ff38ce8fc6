#pragma once
// What a report judged and what it found: the verdict banner's words and the exit code a CI job
// branches on (`report --fail-on`). A report nothing was checked against is NOT JUDGED, never PASS.

#include "diagnosis/acceptance.hpp"
#include "diagnosis/finding.hpp"
#include "results/result_loading.hpp"

#include <optional>
#include <span>

#include <string>
#include <vector>

namespace fb::diagnosis {

enum class VerdictStatus { pass, fail, not_judged };
std::string_view name_of(VerdictStatus status);

struct ReportVerdict {
  VerdictStatus status = VerdictStatus::not_judged;
  std::size_t checks = 0;         // acceptance checks run
  std::size_t failed_checks = 0;  // of them failed or not available
  // What the results were held against, one phrase each: the thresholds, validation, the model,
  // host outliers.
  std::vector<std::string> judged;
  std::vector<Finding> findings;  // wrong results, failed checks, the model's, slow hosts

  // "FAIL: 2 of 9 checks failed; 3 findings" / "PASS: 9 of 9 checks passed" / "NOT JUDGED: ..."
  std::string headline() const;
};

// Pass needs thresholds that all passed and no finding; any finding or failed check is a fail.
// `model_findings` come from the diagnosis against a topology when `model_judged`; without a
// topology, slow hosts are found among pair rows by the median absolute deviation.
ReportVerdict judge_report(std::span<const LoadedResults> sets, const std::optional<AcceptanceVerdict>& acceptance,
                           std::span<const Finding> model_findings, bool model_judged);

}  // namespace fb::diagnosis
