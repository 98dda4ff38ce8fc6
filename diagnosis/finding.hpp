#pragma once
// A finding: something in the results that an operator must look at, with the numbers that show
// it. It is the one type every judgement produces (wrong results, acceptance checks, slow hosts,
// the topology diagnosis' links, nodes, ports and incidents), and the one the console, the JSON
// outputs, JUnit and the HTML report print.

#include "results/result_row.hpp"
#include "topology/graph.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fb::diagnosis {

enum class LinkDirection { both, a_to_b, b_to_a };
std::string_view name_of(LinkDirection direction);

struct Finding {
  std::string kind;                  // wrong_result, acceptance, slow_host, degraded_link, slow_node, ...
  std::string subject;               // what it is about: an op and size, a host, a pair, a link
  std::optional<double> expected{};  // in `unit`; empty when the finding has no reference value
  std::optional<double> measured{};
  std::string unit{};                   // of expected and measured: "GB/s", "us", "elements"
  std::vector<std::string> evidence{};  // the measurements it rests on, one short line each

  // Where the topology model places it (the diagnosis against a topology sets these).
  std::optional<double> confidence{};  // 0..1: how cleanly the measurements single it out
  std::optional<topo::LinkId> link{};  // link findings
  LinkDirection direction = LinkDirection::both;
  // Links the measurements cannot tell apart from `link`: parallel cables that every measured flow
  // spreads over alike (ECMP), so the fault is in one of them.
  std::vector<topo::LinkId> parallel_links{};
  std::string host{};  // slow_node findings
  // Topology findings: the slow pair measurements it explains (in a soak, the most in one repetition).
  std::size_t explained_pairs = 0;

  // measured / expected, when both are known and expected is not zero.
  std::optional<double> ratio() const;
  // A bandwidth finding: expected and measured in GB/s.
  void set_bandwidth_gbps(double expected_gbps, double measured_gbps);
  // The evidence on one line, "; " between its parts.
  std::string evidence_text() const;
};

// One finding per row whose validation found wrong elements.
std::vector<Finding> find_wrong_results(std::span<const ResultRow> rows);

// "all_reduce float sum 1G in-place, 8 ranks" / "bw 4M rank 0 (h1) -> rank 1 (h2)": names a row
// the way findings and reports refer to it.
std::string describe_row(const ResultRow& row);
// ", rank 0 (h1) -> rank 1 (h2)" for a pair row, ", 8 ranks" for a collective, empty when the row
// names neither.
std::string describe_participants(const ResultRow& row);

}  // namespace fb::diagnosis
