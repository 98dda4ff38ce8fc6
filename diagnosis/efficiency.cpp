#include "diagnosis/efficiency.hpp"

#include "diagnosis/finding.hpp"
#include "common/robust_statistics.hpp"

#include <map>
#include <tuple>

namespace fb::diagnosis {

std::vector<EfficiencySummary> summarize_efficiency(std::span<const ResultRow> rows) {
  std::map<std::tuple<std::string, std::uint64_t, bool>, std::vector<const ResultRow*>> groups;
  for (const ResultRow& row : rows)
    if (row.efficiency_pct) groups[{row.op, row.bytes, row.in_place}].push_back(&row);
  std::vector<EfficiencySummary> summaries;
  for (const auto& [key, members] : groups) {
    EfficiencySummary summary;
    summary.op = std::get<0>(key);
    summary.bytes = std::get<1>(key);
    summary.in_place = std::get<2>(key);
    summary.rows = members.size();
    const bool is_time = members.front()->expected_time_us.has_value();
    summary.unit = is_time ? "us" : "GB/s";
    std::vector<double> expected, measured, efficiency;
    const ResultRow* lowest = members.front();
    for (const ResultRow* row : members) {
      expected.push_back(is_time ? row->expected_time_us.value_or(0) : row->expected_busbw_gbps.value_or(0));
      measured.push_back(is_time ? row->time_median_us : row->busbw_gbps.value_or(row->algbw_gbps));
      efficiency.push_back(*row->efficiency_pct);
      if (*row->efficiency_pct < *lowest->efficiency_pct) lowest = row;
    }
    summary.median_expected = median_of(expected);
    summary.median_measured = median_of(measured);
    summary.median_efficiency_pct = median_of(efficiency);
    summary.lowest_efficiency_pct = *lowest->efficiency_pct;
    summary.lowest_row = describe_row(*lowest);
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

}  // namespace fb::diagnosis
