#pragma once
// The report's one judged value: what a set of results was held against (thresholds, validation,
// the model or the peers, another set) and the verdict on all of it. `report` renders it in HTML
// and PDF and on the console; the acceptance and troubleshooting parts are the same values
// `accept` and `diagnose` render. A report nothing was checked against is NOT JUDGED, never PASS.

#include "diagnosis/acceptance_judgement.hpp"
#include "diagnosis/comparison.hpp"
#include "diagnosis/fabric_judgement.hpp"
#include "diagnosis/finding.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb::diagnosis {

enum class VerdictStatus { pass, fail, inconclusive, not_judged };
std::string_view name_of(VerdictStatus status);

struct ReportVerdict {
  VerdictStatus status = VerdictStatus::not_judged;
  std::size_t checks = 0;               // acceptance checks judged
  std::size_t failed_checks = 0;        // of them FAIL
  std::size_t inconclusive_checks = 0;  // of them INCONCLUSIVE
  // What the results were held against, one phrase each: the thresholds, validation, the model,
  // host outliers.
  std::vector<std::string> judged{};
  std::vector<Finding> findings{};  // wrong results, the rows of failed checks, the model's, slow hosts
};

struct ReportJudgement {
  std::optional<AcceptanceJudgement> acceptance{};
  FabricJudgement fabric{};
  std::optional<Comparison> comparison{};
  ReportVerdict verdict{};
};

struct ReportInputs {
  FabricInputs fabric{};
  const Thresholds* thresholds = nullptr;
  double confidence = 0.95;
  // Two result sets to compare (A, B), when asked.
  std::optional<std::pair<std::vector<ResultRow>, std::vector<ResultRow>>> compared{};
};

// FAIL on any finding or failed check; INCONCLUSIVE when a check could not be decided and nothing
// failed; PASS when checks ran and all passed; NOT JUDGED when no check ran and nothing was found.
ReportJudgement judge_report(const ReportInputs& inputs);

}  // namespace fb::diagnosis
