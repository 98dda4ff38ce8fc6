#include "reports/acceptance/check_verdicts_output.hpp"

#include "reports/html/html_escape.hpp"
#include "reports/json/finding_json.hpp"

#include <fmt/format.h>

namespace fb {

using diagnosis::CheckVerdict;
using diagnosis::Decision;
using diagnosis::Finding;
using diagnosis::name_of;
namespace {

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json measurement_json(const diagnosis::MeasurementVerdict& m) {
  return {{"subject", m.subject},
          {"op", m.first.op},
          {"bytes", m.first.bytes},
          {"repetitions", m.verdict.samples},
          {"median", m.verdict.median},
          {"lower_bound", optional_json(m.verdict.lower)},
          {"upper_bound", optional_json(m.verdict.upper)},
          {"verdict", name_of(m.verdict.decision)},
          {"repetitions_needed",
           m.verdict.repetitions_needed ? nlohmann::json(*m.verdict.repetitions_needed) : nlohmann::json(nullptr)}};
}

}  // namespace

std::string verdict_text(const CheckVerdict& verdict) {
  return verdict.skipped ? "SKIPPED" : std::string(name_of(verdict.decision));
}

void print_check_verdicts(std::ostream& out, const diagnosis::AcceptanceJudgement& judged) {
  out << fmt::format("# {:<44} {:<13} {}\n", "check", "verdict", "statement");
  for (const CheckVerdict& v : judged.checks) {
    out << fmt::format("  {:<44} {:<13} {}\n", v.check.name, verdict_text(v), v.statement);
    for (const Finding& f : v.findings) out << fmt::format("      {}: {}\n", f.subject, f.evidence_text());
  }
  for (const std::string& note : judged.notes) out << fmt::format("# {}\n", note);
  out << fmt::format("# verdict: {}\n", name_of(judged.decision));
}

nlohmann::json check_verdicts_json(std::span<const CheckVerdict> checks) {
  nlohmann::json json = nlohmann::json::array();
  for (const CheckVerdict& v : checks) {
    nlohmann::json measurements = nlohmann::json::array();
    for (const diagnosis::MeasurementVerdict& m : v.measurements) measurements.push_back(measurement_json(m));
    nlohmann::json findings = nlohmann::json::array();
    for (const Finding& f : v.findings) findings.push_back(finding_json(f));
    json.push_back(
        {{"name", v.check.name},
         {"kind", name_of(v.check.kind)},
         {"origin", v.origin},
         {"verdict", verdict_text(v)},
         {"statement", v.statement},
         {"rows", v.rows},
         {"unit", v.unit},
         {"limit", v.measurements.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.limit)},
         {"repetitions_needed", v.repetitions_needed ? nlohmann::json(*v.repetitions_needed) : nlohmann::json(nullptr)},
         {"measurements", measurements},
         {"findings", findings}});
  }
  return json;
}

nlohmann::json acceptance_json(const diagnosis::AcceptanceJudgement& judged, std::string_view thresholds_path,
                               double confidence) {
  return {{"schema", accept_summary_schema},
          {"thresholds", thresholds_path},
          {"confidence", confidence},
          {"verdict", name_of(judged.decision)},
          {"checks", check_verdicts_json(judged.checks)},
          {"notes", judged.notes}};
}

std::string check_verdicts_junit_xml(std::span<const CheckVerdict> checks, std::string_view tool,
                                     std::string_view suite) {
  std::size_t failures = 0;
  std::size_t skipped = 0;
  for (const CheckVerdict& v : checks) {
    skipped += v.skipped;
    failures += !v.skipped && v.decision != Decision::pass;
  }
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format("<testsuites name=\"fabricbench {4}\" tests=\"{0}\" failures=\"{1}\" skipped=\"{2}\">\n"
                     "  <testsuite name=\"{3}\" tests=\"{0}\" failures=\"{1}\" skipped=\"{2}\" errors=\"0\">\n",
                     checks.size(), failures, skipped, escape_markup(suite), tool);
  for (const CheckVerdict& v : checks) {
    xml += fmt::format("    <testcase classname=\"fabricbench.{}.{}\" name=\"{}\">\n", tool, name_of(v.check.kind),
                       escape_markup(v.check.name));
    if (v.skipped) {
      xml += fmt::format("      <skipped message=\"{}\"/>\n", escape_markup(v.statement));
    } else if (v.decision == Decision::pass) {
      xml += fmt::format("      <system-out>{}</system-out>\n", escape_markup(v.statement));
    } else {
      std::string details;
      for (const diagnosis::MeasurementVerdict& m : v.measurements)
        if (m.verdict.decision != Decision::pass) details += fmt::format("{}: {}\n", m.subject, m.statement);
      for (const Finding& f : v.findings) details += fmt::format("{}: {}\n", f.subject, f.evidence_text());
      // INCONCLUSIVE is a failure too: CI must not go green on a verdict the noise did not decide.
      xml += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n", escape_markup(v.statement),
                         v.decision == Decision::fail ? "fail" : "inconclusive", escape_markup(details));
    }
    xml += "    </testcase>\n";
  }
  return xml + "  </testsuite>\n</testsuites>\n";
}

}  // namespace fb
