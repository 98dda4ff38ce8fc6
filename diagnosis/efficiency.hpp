#pragma once
// Measurements judged against the topology model: rows that carry an expectation
// (topology/row_expectation.hpp), summarised per op, size and placement, so a pairwise run of
// thousands of rows reads as one line per size.

#include "results/result_row.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace fb::diagnosis {

struct EfficiencySummary {
  std::string op;
  std::uint64_t bytes = 0;
  bool in_place = false;
  std::size_t rows = 0;
  std::string unit;  // of expected and measured: "GB/s" (busbw, algbw where undefined) or "us"
  double median_expected = 0;
  double median_measured = 0;
  double median_efficiency_pct = 0;
  double lowest_efficiency_pct = 0;
  std::string lowest_row;  // describe_row of the least efficient row
};

// One summary per (op, bytes, placement) among the rows with an efficiency, ordered by op, size,
// out-of-place first.
std::vector<EfficiencySummary> summarize_efficiency(std::span<const ResultRow> rows);

}  // namespace fb::diagnosis
