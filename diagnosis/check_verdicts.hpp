#pragma once
// The checks of a thresholds file (and those the topology model derives) judged with a stated
// confidence: PASS, FAIL or INCONCLUSIVE per check. Limit checks (bandwidth minimums, latency
// maximums, pair bandwidth against its expectation) are decided over repetitions
// (diagnosis/repeated_limit.hpp); zero_wrong counts elements and no_host_outlier compares hosts,
// neither a question of repetitions, and keep acceptance.hpp's rule.

#include "diagnosis/repeated_limit.hpp"
#include "diagnosis/acceptance.hpp"
#include "diagnosis/thresholds.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb::diagnosis {

struct CheckVerdict {
  diagnosis::Check check;
  std::string origin;  // "thresholds.yaml:12", or "topology model" for derived checks
  diagnosis::Decision decision = diagnosis::Decision::fail;
  bool skipped = false;   // not applicable (an outlier check with fewer than 3 hosts): counts as no failure
  std::string statement;  // the verdict with its confidence, one line
  std::optional<std::size_t> repetitions_needed;
  std::size_t rows = 0;
  // Limit checks: one verdict per measurement (size, pair); plotted with the limit in the record.
  std::vector<diagnosis::MeasurementVerdict> measurements;
  std::string unit;  // of the checked value: GB/s, us, or "x model" for derived checks
  bool higher_is_better = true;
  double limit = 0;                          // in `unit`
  std::vector<diagnosis::Finding> findings;  // zero_wrong, no_host_outlier: the rows and hosts at fault
};

// Every check of `thresholds` in order; `origin` names the file in each verdict. Throws InputError
// for a check naming an unknown op, as evaluate_acceptance does.
std::vector<CheckVerdict> judge_checks(const diagnosis::Thresholds& thresholds, std::span<const ResultRow> rows,
                                       double confidence);

// Derived from the topology model: per collective op in the rows that carry the model's expected
// busbw, busbw / expected >= `fraction` at every size >= `min_bytes`.
std::vector<CheckVerdict> judge_model_checks(std::span<const ResultRow> rows, double fraction, std::uint64_t min_bytes,
                                             double confidence);

// PASS when every check passed or was skipped; INCONCLUSIVE when none failed but one could not be
// decided; FAIL otherwise. An empty list is INCONCLUSIVE: nothing was judged.
diagnosis::Decision overall_decision(std::span<const CheckVerdict> verdicts);

}  // namespace fb::diagnosis
