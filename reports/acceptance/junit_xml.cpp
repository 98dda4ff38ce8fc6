#include "reports/acceptance/junit_xml.hpp"

#include "reports/html/html_escape.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fb {

using diagnosis::AcceptanceVerdict;
using diagnosis::CheckResult;
using diagnosis::CheckStatus;
using diagnosis::Finding;
using diagnosis::name_of;

std::string acceptance_to_junit_xml(const AcceptanceVerdict& verdict, std::string_view suite_name) {
  const auto count = [&](CheckStatus status) {
    return std::count_if(verdict.results.begin(), verdict.results.end(),
                         [&](const CheckResult& r) { return r.status == status; });
  };
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format("<testsuites name=\"fabricbench accept\" tests=\"{0}\" failures=\"{1}\" skipped=\"{2}\">\n"
                     "  <testsuite name=\"{3}\" tests=\"{0}\" failures=\"{1}\" skipped=\"{2}\" errors=\"0\">\n",
                     verdict.results.size(), count(CheckStatus::fail) + count(CheckStatus::not_available),
                     count(CheckStatus::skip), escape_markup(suite_name));
  for (const CheckResult& result : verdict.results) {
    xml += fmt::format("    <testcase classname=\"fabricbench.accept.{}\" name=\"{}\">\n", name_of(result.check.kind),
                       escape_markup(result.check.name));
    if (result.status == CheckStatus::not_available) {
      // Not a pass: CI must not go green on a statistic that was never measured.
      xml += fmt::format("      <failure message=\"{}\" type=\"not_available\"/>\n", escape_markup(result.summary));
    } else if (result.status == CheckStatus::fail) {
      std::string details;
      for (const Finding& finding : result.findings)
        details += fmt::format("{}: {}\n", finding.subject, finding.evidence_text());
      xml += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n", escape_markup(result.summary),
                         name_of(result.check.kind), escape_markup(details));
    } else if (result.status == CheckStatus::skip) {
      xml += fmt::format("      <skipped message=\"{}\"/>\n", escape_markup(result.summary));
    } else {
      xml += fmt::format("      <system-out>{}</system-out>\n", escape_markup(result.summary));
    }
    xml += "    </testcase>\n";
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

}  // namespace fb
