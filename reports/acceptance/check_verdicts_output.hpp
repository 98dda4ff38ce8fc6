#pragma once
// The acceptance judgement (diagnosis/acceptance_judgement.hpp) in every form it leaves the tool:
// the console table, one JSON form of a check verdict (accept --json and the campaign's
// summary.json both hold it) and one JUnit XML writer (accept --junit and the campaign's
// junit.xml). Nothing here judges.

#include "diagnosis/acceptance_judgement.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <span>
#include <string>
#include <string_view>

namespace fb {

// docs/schemas/accept.schema.json. v1 (one status per check, judged row by row) is replaced: v2's
// checks are the campaign summary's, judged over repetitions with a stated confidence.
inline constexpr std::string_view accept_summary_schema = "fabricbench.accept.v2";

// "PASS", "FAIL", "INCONCLUSIVE" or "SKIPPED".
std::string verdict_text(const diagnosis::CheckVerdict& verdict);

// One line per check and its statement, then "# verdict: ...".
void print_check_verdicts(std::ostream& out, const diagnosis::AcceptanceJudgement& judged);

// The checks as a JSON array: name, kind, origin, verdict, statement, rows, unit, limit,
// repetitions_needed, measurements, findings.
nlohmann::json check_verdicts_json(std::span<const diagnosis::CheckVerdict> checks);

// accept --json: the schema, the thresholds file, the confidence, the verdict, the checks, notes.
nlohmann::json acceptance_json(const diagnosis::AcceptanceJudgement& judged, std::string_view thresholds_path,
                               double confidence);

// One test case per check; INCONCLUSIVE is a failure of type "inconclusive" (CI must not pass on
// it). `tool` names the classname's middle part (accept, campaign), `suite` the test suite.
std::string check_verdicts_junit_xml(std::span<const diagnosis::CheckVerdict> checks, std::string_view tool,
                                     std::string_view suite);

}  // namespace fb
