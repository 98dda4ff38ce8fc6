#pragma once
// A limit check judged over repetitions: the rows a check selects fall into measurements (the same
// op, size, placement, ranks and endpoints, measured again in each repetition of a soak or
// campaign sweep); each measurement's values over its repetitions are judged against the limit by
// repeated_verdict.hpp, and the check is the worst of them: FAIL when any measurement fails, PASS
// when every one passes, INCONCLUSIVE otherwise.
//
// Error rates per check: a false accept needs the one measurement that breaks the limit to pass,
// at most alpha; a false reject can come from any of m measurements, so each is failed at
// alpha / m (Bonferroni) and the check keeps at most alpha.

#include "diagnosis/repeated_verdict.hpp"
#include "results/result_row.hpp"

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb::diagnosis {

struct RepeatedLimit {
  std::function<bool(const ResultRow&)> selects;
  // The checked value of a row (busbw, a time statistic); empty when the row has none.
  std::function<std::optional<double>(const ResultRow&)> value;
  double limit = 0;
  bool higher_is_better = true;
  std::string unit;          // GB/s or us
  double confidence = 0.95;  // false accepts and false rejects each at most (1 - confidence) / 2
};

struct MeasurementVerdict {
  ResultRow first;  // the measurement's first row (its op, size, placement, endpoints)
  std::string subject;
  SampleVerdict verdict;
  std::string statement;  // describe() of the verdict
};

struct RepeatedLimitVerdict {
  Decision decision = Decision::fail;
  std::size_t rows = 0;
  std::vector<MeasurementVerdict> measurements;  // in the rows' order of first appearance
  std::string statement;                         // one line for the check as a whole
  // INCONCLUSIVE: the most repetitions any undecided measurement needs (empty when one of them
  // sits on the limit).
  std::optional<std::size_t> repetitions_needed;
};

// No selected row with a value: FAIL ("nothing was measured"), as acceptance cannot pass on data
// never measured.
RepeatedLimitVerdict judge_over_repetitions(std::span<const ResultRow> rows, const RepeatedLimit& check);

// The key that joins a measurement's repetitions: every field that says what was measured, none
// that says when (run id, timestamp, repetition, round).
std::string measurement_key(const ResultRow& row);

}  // namespace fb::diagnosis
