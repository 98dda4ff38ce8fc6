// Planted on purpose, never linked into anything: a call of a judging function of the diagnosis
// library from outside it, as a renderer in reports/ must not make. architecture.judge_callers
// adds this object to the reports' objects and requires judge_callers_test.sh to name the call,
// so the test is seen to fail on the very thing it guards against.

#include "diagnosis/check_verdicts.hpp"

#include <span>
#include <vector>

namespace fb::architecture_test {

std::vector<diagnosis::CheckVerdict> planted_judge_call(const diagnosis::Thresholds& thresholds,
                                                        std::span<const ResultRow> rows);

std::vector<diagnosis::CheckVerdict> planted_judge_call(const diagnosis::Thresholds& thresholds,
                                                        std::span<const ResultRow> rows) {
  return diagnosis::judge_checks(thresholds, rows, 0.95);
}

}  // namespace fb::architecture_test
