#include "diagnosis/verdict.hpp"

#include "common/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fb::diagnosis {
namespace {

// The model's findings as a technician reads them in the report: rank and ticket first, then the
// measurements behind them.
Finding with_ticket(const FindingTicket& ranked, const FabricJudgement& fabric) {
  Finding finding = ranked.finding;
  const std::vector<std::string> ticket_lines{fmt::format("rank {}: {}", ranked.rank,
                                                          ranked.cost ? fmt::format("{:+.1f}% predicted for {} ({})",
                                                                                    100 * ranked.cost->slowdown,
                                                                                    fabric.job_mix, fabric.cost_basis)
                                                                      : ranked.no_cost),
                                              "where: " + ranked.ticket.location, "do: " + ranked.ticket.action,
                                              "confirm: " + ranked.ticket.confirm};
  finding.evidence.insert(finding.evidence.begin(), ticket_lines.begin(), ticket_lines.end());
  return finding;
}

void add_acceptance(const AcceptanceJudgement& acceptance, ReportVerdict& verdict) {
  verdict.checks = acceptance.checks.size();
  for (const CheckVerdict& check : acceptance.checks) {
    if (check.skipped || check.decision == Decision::pass) continue;
    if (check.decision == Decision::inconclusive) {
      ++verdict.inconclusive_checks;
      continue;
    }
    ++verdict.failed_checks;
    if (check.findings.empty())
      verdict.findings.push_back({.kind = "acceptance", .subject = check.check.name, .evidence = {check.statement}});
    verdict.findings.insert(verdict.findings.end(), check.findings.begin(), check.findings.end());
  }
  verdict.judged.push_back(fmt::format("{} acceptance checks", verdict.checks));
}

ReportVerdict verdict_of(const ReportJudgement& judged, std::span<const ResultRow> rows) {
  ReportVerdict verdict;
  const FabricJudgement& fabric = judged.fabric;
  verdict.findings = fabric.wrong_results;
  const auto validated =
      std::count_if(rows.begin(), rows.end(), [](const ResultRow& r) { return r.wrong.has_value(); });
  if (validated > 0)
    verdict.judged.push_back(
        fmt::format("element validation of {} rows ({} with wrong elements)", validated, fabric.wrong_results.size()));
  if (judged.acceptance) add_acceptance(*judged.acceptance, verdict);
  for (const FindingTicket& ranked : fabric.ranked) verdict.findings.push_back(with_ticket(ranked, fabric));
  if (fabric.topology_given) {
    verdict.judged.push_back("the topology model (degraded, blocking and failed links, slow nodes)");
  } else {
    // The model's diagnosis names slow nodes itself; without it the peers are the reference.
    for (const HostOutliers& outliers : fabric.host_outliers) {
      verdict.judged.push_back(fmt::format("host outliers among {} hosts at {} (median absolute deviation)",
                                           outliers.hosts, format_size_bytes(outliers.bytes)));
      verdict.findings.insert(verdict.findings.end(), outliers.findings.begin(), outliers.findings.end());
    }
  }
  if (!verdict.findings.empty() || verdict.failed_checks > 0)
    verdict.status = VerdictStatus::fail;
  else if (verdict.inconclusive_checks > 0)
    verdict.status = VerdictStatus::inconclusive;
  else if (verdict.checks > 0)
    verdict.status = VerdictStatus::pass;
  return verdict;
}

}  // namespace

std::string_view name_of(VerdictStatus status) {
  switch (status) {
    case VerdictStatus::pass: return "PASS";
    case VerdictStatus::fail: return "FAIL";
    case VerdictStatus::inconclusive: return "INCONCLUSIVE";
    case VerdictStatus::not_judged: return "NOT JUDGED";
  }
  return "unknown";
}

ReportJudgement judge_report(const ReportInputs& inputs) {
  ReportJudgement judged;
  judged.fabric = judge_fabric(inputs.fabric, "report");
  const std::vector<ResultRow> rows = all_rows(inputs.fabric.sets);
  if (inputs.thresholds)
    judged.acceptance =
        judge_acceptance({.rows = rows, .thresholds = inputs.thresholds, .confidence = inputs.confidence}, "report");
  if (inputs.compared) judged.comparison = compare_results(inputs.compared->first, inputs.compared->second);
  judged.verdict = verdict_of(judged, rows);
  return judged;
}

}  // namespace fb::diagnosis
