#pragma once
// Hosts whose pair measurements stand out from their peers', found by the median absolute deviation
// (modified z-score): no topology needed, and a few bad hosts cannot hide in the spread they cause.

#include "diagnosis/finding.hpp"
#include "results/result_row.hpp"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fb::diagnosis {

// Iglewicz and Hoaglin's outlier rule.
inline constexpr double default_max_modified_z = 3.5;

// Hosts scored against their peers: each host's median value and its modified z-score among the
// hosts' medians. Both slow-host detectors rest on it: find_host_outliers over a metric of the
// pair rows, and the topology diagnosis' slow nodes over measured / expected of each host's flows.
struct HostScores {
  std::vector<std::string> hosts;         // in name order
  std::vector<double> median_values;      // per host: the median of its values
  std::vector<double> modified_z_scores;  // per host, among median_values
};
HostScores score_hosts(const std::map<std::string, std::vector<double>>& values_by_host);

struct HostOutliers {
  std::size_t hosts = 0;          // hosts compared; fewer than 3 cannot show an outlier
  std::size_t rows = 0;           // per-host rows they were compared on
  std::uint64_t bytes = 0;        // the size they were compared at
  double peer_median = 0;         // the median of the hosts' values
  std::vector<Finding> findings;  // kind slow_host, one per host on the bad side of the limit
};

// `rows` hold one size of per-host rows (src_host set). A host's value is the median of `metric`
// over every row it took part in, as sender or receiver: one bad peer then moves it less than its
// own bad link does. Only the bad side is an outlier: a faster host is not a fault to fix.
HostOutliers find_host_outliers(std::span<const ResultRow* const> rows, std::string_view metric, double max_modified_z);

// For each op whose rows pair hosts one at a time (pairwise, pairwise_latency, bw, latency with
// hosts), the outliers at its largest size: bandwidth for bandwidth ops, the median time for
// latency ops. concurrent is left out: its pairs share links on purpose.
std::vector<HostOutliers> find_slow_hosts(std::span<const ResultRow> rows);

}  // namespace fb::diagnosis
