#pragma once
// The acceptance job's one judged value: the checks of a thresholds file, those the topology model
// derives and those against a run store's baseline, each PASS, FAIL or INCONCLUSIVE with its
// confidence (diagnosis/check_verdicts.hpp), the hosts they single out and the overall verdict.
// `accept`, `campaign` and `report --thresholds` all render this value, so the same rows and
// thresholds get the same verdict per check whichever command judged them.

#include "diagnosis/baseline.hpp"
#include "diagnosis/check_verdicts.hpp"
#include "diagnosis/drain_list.hpp"
#include "diagnosis/thresholds.hpp"
#include "results/result_row.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb::diagnosis {

// Checks the topology model derives: every collective row at or above `min_bytes` reaches
// `fraction` of the busbw the model expects for it (the rows' expected_busbw_gbps column).
struct ModelCheckSpec {
  double fraction = 0.9;
  std::uint64_t min_bytes = 0;
};

struct BaselineInput {
  const BaselineVerdict* verdict = nullptr;
  std::string description{};  // "the last 20 accepted runs on these hosts in S (12 found)"
};

struct AcceptanceInputs {
  std::span<const ResultRow> rows{};
  const Thresholds* thresholds = nullptr;
  // Each verdict's: false accepts and false rejects each at most (1 - confidence) / 2.
  double confidence = 0.95;
  std::optional<ModelCheckSpec> model_checks{};
  std::optional<BaselineInput> baseline{};
  // Work the plan asked for that the rows cannot show: a stage that was interrupted, failed or not
  // run. Each becomes an INCONCLUSIVE check with its reason, so the verdict cannot be PASS on less
  // than was planned.
  std::vector<std::string> missing_work{};
  std::vector<HostReason> host_errors{};  // the doctor's error flags: drained first
};

struct AcceptanceJudgement {
  std::vector<CheckVerdict> checks{};
  std::vector<std::string> notes{};  // what a reader needs beside the checks (the baseline's description)
  DrainList drain{};                 // the hosts a host-outlier check singled out
  Decision decision = Decision::inconclusive;
  // Fewer repetitions than this bound no median at the confidence asked: such a check is
  // INCONCLUSIVE whatever it measured.
  std::size_t fewest_repetitions = 0;
};

// Throws InputError for a check naming an unknown op (a typo in the thresholds file).
AcceptanceJudgement judge_acceptance(const AcceptanceInputs& inputs, const std::string& drained_by);

}  // namespace fb::diagnosis
