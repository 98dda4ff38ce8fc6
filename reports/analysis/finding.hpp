#pragma once
// A finding: something in the results that an operator must look at, with the numbers that show
// it. Every stage that judges results (wrong-result scan, acceptance checks, the topology model's
// localisation) produces these, and the HTML report and the console print them alike.

#include "results/result_row.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb {

struct Finding {
  std::string kind;                 // wrong_result, acceptance, slow_pair, slow_host, degraded_link, ...
  std::string subject;              // what it is about: an op and size, a host, a pair, a link
  std::optional<double> expected;   // in `unit`; empty when the finding has no reference value
  std::optional<double> measured;
  std::string unit;                 // of expected and measured: "GB/s", "us", "elements"
  std::string evidence;             // the measurements it rests on, readable by a person

  // measured / expected, when both are known and expected is not zero.
  std::optional<double> ratio() const;

  bool operator==(const Finding&) const = default;
};

// One finding per row whose validation found wrong elements.
std::vector<Finding> find_wrong_results(std::span<const ResultRow> rows);

// "all_reduce float sum 1G in-place, 8 ranks" / "bw 4M rank 0 (h1) -> rank 1 (h2)": names a row
// the way findings and reports refer to it.
std::string describe_row(const ResultRow& row);

}  // namespace fb
