#include "reports/acceptance/acceptance_json.hpp"

#include <algorithm>

namespace fb {

using diagnosis::AcceptanceVerdict;
using diagnosis::CheckResult;
using diagnosis::CheckStatus;
using diagnosis::Finding;
using diagnosis::name_of;

nlohmann::json acceptance_to_json(const AcceptanceVerdict& verdict, std::string_view thresholds_path) {
  const auto optional = [](const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
  };
  nlohmann::json checks = nlohmann::json::array();
  for (const CheckResult& result : verdict.results) {
    nlohmann::json findings = nlohmann::json::array();
    for (const Finding& f : result.findings)
      findings.push_back({{"kind", f.kind},
                          {"subject", f.subject},
                          {"expected", optional(f.expected)},
                          {"measured", optional(f.measured)},
                          {"unit", f.unit},
                          {"evidence", f.evidence_text()}});
    checks.push_back({{"name", result.check.name},
                      {"kind", name_of(result.check.kind)},
                      {"line", result.check.line},
                      {"status", name_of(result.status)},
                      {"rows", result.rows_checked},
                      {"summary", result.summary},
                      {"findings", findings}});
  }
  const bool failed = std::any_of(verdict.results.begin(), verdict.results.end(),
                                  [](const CheckResult& r) { return r.status == CheckStatus::fail; });
  // As the console says it: a statistic never reported is not a pass, and not a measured failure.
  return {{"schema", accept_summary_schema},
          {"thresholds", thresholds_path},
          {"verdict", verdict.passed() ? "PASS"
                      : failed         ? "FAIL"
                                       : "NOT AVAILABLE"},
          {"checks", checks}};
}

}  // namespace fb
