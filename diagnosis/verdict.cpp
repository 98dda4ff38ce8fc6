#include "diagnosis/verdict.hpp"

#include "diagnosis/host_outliers.hpp"
#include "common/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fb::diagnosis {

std::string_view name_of(VerdictStatus status) {
  switch (status) {
    case VerdictStatus::pass: return "PASS";
    case VerdictStatus::fail: return "FAIL";
    case VerdictStatus::not_judged: return "NOT JUDGED";
  }
  return "unknown";
}

std::string ReportVerdict::headline() const {
  const std::string counted_findings = fmt::format("{} finding{}", findings.size(), findings.size() == 1 ? "" : "s");
  if (checks == 0)
    return status == VerdictStatus::fail
               ? fmt::format("FAIL: {} (no thresholds given)", counted_findings)
               : fmt::format("{}: no thresholds given, no acceptance checks", name_of(status));
  std::string text = failed_checks > 0 ? fmt::format("{}: {} of {} checks failed or not available", name_of(status),
                                                     failed_checks, checks)
                                       : fmt::format("{}: {} of {} checks passed", name_of(status), checks, checks);
  if (!findings.empty()) text += "; " + counted_findings;
  return text;
}

ReportVerdict judge_report(std::span<const LoadedResults> sets, const std::optional<AcceptanceVerdict>& acceptance,
                           std::span<const Finding> model_findings, bool model_judged) {
  ReportVerdict verdict;
  const std::vector<ResultRow> rows = all_rows(sets);
  verdict.findings = find_wrong_results(rows);
  const auto validated =
      std::count_if(rows.begin(), rows.end(), [](const ResultRow& r) { return r.wrong.has_value(); });
  if (validated > 0)
    verdict.judged.push_back(
        fmt::format("element validation of {} rows ({} with wrong elements)", validated, verdict.findings.size()));
  if (acceptance) {
    verdict.checks = acceptance->results.size();
    for (const CheckResult& r : acceptance->results) {
      if (r.status != CheckStatus::fail && r.status != CheckStatus::not_available) continue;
      ++verdict.failed_checks;
      if (r.findings.empty())
        verdict.findings.push_back({.kind = "acceptance", .subject = r.check.name, .evidence = {r.summary}});
      verdict.findings.insert(verdict.findings.end(), r.findings.begin(), r.findings.end());
    }
    verdict.judged.push_back(fmt::format("{} acceptance checks", verdict.checks));
  }
  verdict.findings.insert(verdict.findings.end(), model_findings.begin(), model_findings.end());
  if (model_judged) {
    verdict.judged.push_back("the topology model (degraded, blocking and failed links, slow nodes)");
  } else {
    // The model's diagnosis names slow nodes itself; without it the peers are the reference.
    for (HostOutliers& outliers : find_slow_hosts(rows)) {
      verdict.judged.push_back(fmt::format("host outliers among {} hosts at {} (median absolute deviation)",
                                           outliers.hosts, format_size_bytes(outliers.bytes)));
      verdict.findings.insert(verdict.findings.end(), outliers.findings.begin(), outliers.findings.end());
    }
  }
  if (!verdict.findings.empty() || verdict.failed_checks > 0)
    verdict.status = VerdictStatus::fail;
  else if (verdict.checks > 0)
    verdict.status = VerdictStatus::pass;
  return verdict;
}

}  // namespace fb::diagnosis
