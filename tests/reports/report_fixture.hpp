#pragma once
// A report input with hostile strings in every place an input string reaches the report.

#include "reports/html/html_report.hpp"
#include "support/result_rows.hpp"

namespace fb::testing {

// The report's judgement of `input.sets`, as `report` makes it (no topology).
inline void judge(ReportInput& input, const diagnosis::Thresholds* thresholds = nullptr) {
  input.judged = diagnosis::judge_report({.fabric = {.sets = input.sets}, .thresholds = thresholds});
}

inline constexpr const char* hostile_host = "<img src=x onerror=alert(1)>";

inline ReportInput hostile_report_input() {
  LoadedResults set;
  set.source = "results/<b>bold</b>.json";
  set.label = "run-a";
  set.results.provenance.run_id = "run-a";
  set.results.provenance.rank_hosts = {hostile_host, "node'2\""};
  set.results.provenance.environment = {{"NCCL_IB_HCA", "<script>alert(2)</script>"}};
  set.results.provenance.command_line = "fabricbench run all_reduce & echo 'done'";
  set.results.provenance.assumptions = {"8 ranks inferred from busbw/algbw (the log lists no <ranks>)"};
  for (std::uint64_t bytes : {1024ull, 1ull << 20, 64ull << 20}) {
    set.results.rows.push_back(collective_row("all_reduce", bytes, static_cast<double>(bytes) / 2e4));
    ResultRow in_place = set.results.rows.back();
    in_place.in_place = true;
    set.results.rows.push_back(in_place);
    set.results.rows.push_back(collective_row("all_gather", bytes, static_cast<double>(bytes) / 1e4));
  }
  // A pairwise matrix over three hosts with one slow cell, and one row that failed validation.
  const std::vector<std::string> hosts{hostile_host, "node-2", "node-3"};
  for (int src = 0; src < 3; ++src)
    for (int dst = 0; dst < 3; ++dst)
      if (src != dst)
        set.results.rows.push_back(pair_row(src, dst, hosts[static_cast<std::size_t>(src)],
                                            hosts[static_cast<std::size_t>(dst)], src == 2 && dst == 0 ? 12.0 : 48.0));
  set.results.rows[0].wrong = 5;
  ReportInput input;
  input.sets.push_back(std::move(set));
  // A fabric drawing whose host name is hostile too, with the flagged link drawn as the DOT writer
  // of the topology stage draws it.
  input.topology_dot = std::string("graph fabric {\n  \"") + hostile_host +
                       "\" -- \"leaf0001\" [label=\"Ethernet 1 GB/s\", color=red, penwidth=3];\n}\n";
  judge(input);
  return input;
}

}  // namespace fb::testing
