#include "diagnosis/finding.hpp"

#include "common/sizes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fb::diagnosis {

std::string_view name_of(LinkDirection direction) {
  switch (direction) {
    case LinkDirection::both: return "both";
    case LinkDirection::a_to_b: return "a_to_b";
    case LinkDirection::b_to_a: return "b_to_a";
  }
  return "both";
}

std::optional<double> Finding::ratio() const {
  if (!expected || !measured || *expected == 0) return std::nullopt;
  return *measured / *expected;
}

void Finding::set_bandwidth_gbps(double expected_gbps, double measured_gbps) {
  expected = expected_gbps;
  measured = measured_gbps;
  unit = "GB/s";
}

std::string Finding::evidence_text() const { return fmt::format("{}", fmt::join(evidence, "; ")); }

std::string describe_participants(const ResultRow& row) {
  const auto endpoint = [](const std::optional<int>& rank, const std::string& host) {
    if (rank && !host.empty()) return fmt::format("rank {} ({})", *rank, host);
    return rank ? fmt::format("rank {}", *rank) : host;
  };
  if (row.src_rank || !row.src_host.empty())
    return fmt::format(", {} -> {}", endpoint(row.src_rank, row.src_host), endpoint(row.dst_rank, row.dst_host));
  return row.nranks > 0 ? fmt::format(", {} ranks", row.nranks) : std::string();
}

std::string describe_row(const ResultRow& row) {
  std::string text = fmt::format("{} {}", row.op, format_size_bytes(row.bytes));
  if (!row.dtype.empty()) text += " " + row.dtype;
  if (!row.redop.empty() && row.redop != "none") text += " " + row.redop;
  text += row.in_place ? " in-place" : " out-of-place";
  text += describe_participants(row);
  if (!row.run_id.empty()) text += fmt::format(" [run {}]", row.run_id);
  return text;
}

std::vector<Finding> find_wrong_results(std::span<const ResultRow> rows) {
  std::vector<Finding> findings;
  for (const ResultRow& row : rows) {
    if (row.wrong.value_or(0) == 0) continue;
    findings.push_back({.kind = "wrong_result",
                        .subject = describe_row(row),
                        .expected = 0.0,
                        .measured = static_cast<double>(*row.wrong),
                        .unit = "elements",
                        .evidence = {fmt::format("{} of {} elements per rank differ from the expected pattern",
                                                 *row.wrong, row.count)}});
  }
  return findings;
}

}  // namespace fb::diagnosis
