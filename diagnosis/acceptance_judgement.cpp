#include "diagnosis/acceptance_judgement.hpp"

#include "common/sizes.hpp"

#include <fmt/format.h>

namespace fb::diagnosis {
namespace {

// A judgement the inputs cannot support is INCONCLUSIVE and stays on the record, never absent.
CheckVerdict inconclusive_check(std::string name, CheckKind kind, std::string origin, std::string reason) {
  CheckVerdict verdict;
  verdict.check.name = std::move(name);
  verdict.check.kind = kind;
  verdict.origin = std::move(origin);
  verdict.decision = Decision::inconclusive;
  verdict.statement = "INCONCLUSIVE: " + std::move(reason);
  return verdict;
}

void add_model_checks(const AcceptanceInputs& inputs, AcceptanceJudgement& judged) {
  const ModelCheckSpec& spec = *inputs.model_checks;
  std::vector<CheckVerdict> derived = judge_model_checks(inputs.rows, spec.fraction, spec.min_bytes, inputs.confidence);
  if (derived.empty())
    derived.push_back(inconclusive_check(
        fmt::format("collective busbw >= {:.0f}% of the model at >= {}", 100 * spec.fraction,
                    format_size_bytes(spec.min_bytes)),
        CheckKind::min_bandwidth, "topology model",
        "no collective row carries the model's expectation (the topology does not hold the hosts measured, or no "
        "collective was measured at that size): no check could be derived"));
  judged.checks.insert(judged.checks.end(), derived.begin(), derived.end());
}

void add_baseline_checks(const BaselineInput& baseline, AcceptanceJudgement& judged) {
  const BaselineVerdict& verdict = *baseline.verdict;
  std::vector<CheckVerdict> against = baseline_check_verdicts(verdict, "baseline: " + baseline.description);
  judged.notes.push_back(fmt::format("baseline: {}; {}", baseline.description, verdict.statement));
  // Nothing in common with the baseline is still a judgement: INCONCLUSIVE, not an absent check.
  if (against.empty()) {
    CheckVerdict none;
    none.check.name = "against the baseline";
    none.origin = "baseline: " + baseline.description;
    none.decision = verdict.decision;
    none.statement = verdict.statement;
    against.push_back(std::move(none));
  }
  judged.checks.insert(judged.checks.end(), against.begin(), against.end());
}

}  // namespace

AcceptanceJudgement judge_acceptance(const AcceptanceInputs& inputs, const std::string& drained_by) {
  AcceptanceJudgement judged{.checks = {}, .notes = {}, .drain = DrainList(drained_by)};
  for (const HostReason& error : inputs.host_errors) judged.drain.add(error.host, error.reason);
  if (inputs.thresholds) judged.checks = judge_checks(*inputs.thresholds, inputs.rows, inputs.confidence);
  if (inputs.model_checks) add_model_checks(inputs, judged);
  if (inputs.baseline) add_baseline_checks(*inputs.baseline, judged);
  for (const std::string& missing : inputs.missing_work)
    judged.checks.push_back(
        inconclusive_check("every planned measurement taken", CheckKind::planned_work, "plan", missing));
  // Only a host outlier singles out a host; a slow pair or collective row involves several, and
  // `diagnose` is what tells which of them is at fault.
  for (const CheckVerdict& verdict : judged.checks)
    for (const Finding& finding : verdict.findings)
      if (finding.kind == "slow_host")
        judged.drain.add(finding.subject, verdict.check.name + ": " + finding.evidence_text());
  judged.decision = overall_decision(judged.checks);
  judged.fewest_repetitions = fewest_repetitions_for((1 - inputs.confidence) / 2);
  return judged;
}

}  // namespace fb::diagnosis
