#include "diagnosis/host_outliers.hpp"

#include "diagnosis/thresholds.hpp"
#include "common/op_catalog.hpp"
#include "common/robust_statistics.hpp"
#include "common/sizes.hpp"

#include <fmt/format.h>

#include <map>

namespace fb::diagnosis {

HostScores score_hosts(const std::map<std::string, std::vector<double>>& values_by_host) {
  HostScores scores;
  for (const auto& [host, values] : values_by_host) {
    scores.hosts.push_back(host);
    scores.median_values.push_back(median_of(values));
  }
  scores.modified_z_scores = modified_z_scores(scores.median_values);
  return scores;
}

HostOutliers find_host_outliers(std::span<const ResultRow* const> rows, std::string_view metric,
                                double max_modified_z) {
  HostOutliers outliers;
  std::map<std::string, std::vector<double>> values_by_host;
  for (const ResultRow* row : rows) {
    const std::optional<double> value = metric_value(*row, metric);
    if (row->src_host.empty() || !value) continue;
    ++outliers.rows;
    outliers.bytes = row->bytes;
    values_by_host[row->src_host].push_back(*value);
    if (!row->dst_host.empty() && row->dst_host != row->src_host) values_by_host[row->dst_host].push_back(*value);
  }
  outliers.hosts = values_by_host.size();
  if (outliers.hosts < 3) return outliers;
  const auto [hosts, host_values, scores] = score_hosts(values_by_host);
  outliers.peer_median = median_of(host_values);
  const bool higher_is_better = metric_higher_is_better(metric);
  const std::string unit = higher_is_better ? "GB/s" : "us";
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const double badness = higher_is_better ? -scores[i] : scores[i];
    if (badness <= max_modified_z) continue;
    outliers.findings.push_back(
        {.kind = "slow_host",
         .subject = hosts[i],
         .expected = outliers.peer_median,
         .measured = host_values[i],
         .unit = unit,
         .evidence = {
             fmt::format("median {} over {} rows at {} is {:.4g} against a peer median of {:.4g}; modified z-score "
                         "{:.2f} (limit {:.2f})",
                         metric, values_by_host.at(hosts[i]).size(), format_size_bytes(outliers.bytes), host_values[i],
                         outliers.peer_median, scores[i], max_modified_z)}});
  }
  return outliers;
}

std::vector<HostOutliers> find_slow_hosts(std::span<const ResultRow> rows) {
  std::map<std::string, std::uint64_t> largest_bytes;
  for (const ResultRow& row : rows) {
    const OpTraits* op = find_op(row.op);
    if (row.src_host.empty() || (op && measures_contention(*op))) continue;
    largest_bytes[row.op] = std::max(largest_bytes[row.op], row.bytes);
  }
  std::vector<HostOutliers> found;
  for (const auto& [op_name, bytes] : largest_bytes) {
    std::vector<const ResultRow*> at_size;
    for (const ResultRow& row : rows)
      if (row.op == op_name && row.bytes == bytes && !row.src_host.empty()) at_size.push_back(&row);
    const OpTraits* op = find_op(op_name);
    const bool latency = op && reports_latency(*op);
    HostOutliers outliers =
        find_host_outliers(at_size, latency ? "time_median_us" : "algbw_gbps", default_max_modified_z);
    for (Finding& finding : outliers.findings) finding.subject = fmt::format("{} ({})", finding.subject, op_name);
    if (outliers.hosts >= 3) found.push_back(std::move(outliers));
  }
  return found;
}

}  // namespace fb::diagnosis
