#pragma once
// The acceptance thresholds file (YAML): a list of checks a cluster must pass. See
// docs/reports.md for the format and reports/thresholds/ for examples.

#include "results/result_row.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fb::diagnosis {

enum class CheckKind {
  min_bandwidth,       // every selected row's bandwidth metric >= at_least_gbps
  max_latency,         // every selected row's time statistic <= at_most_us
  zero_wrong,          // every selected row validated, with no wrong element
  no_host_outlier,     // no host's bandwidth (or time) is an outlier against its peers
  pairwise_bandwidth,  // every pair's bandwidth >= min_fraction x expected_gbps
  // Not in a thresholds file: the campaign's own check that every planned stage ran to the end on
  // every planned repetition (diagnosis/acceptance_judgement.hpp).
  planned_work,
};

std::string_view name_of(CheckKind kind);

// Which rows a check looks at. Empty fields select everything.
struct RowSelection {
  std::string op;
  std::optional<std::uint64_t> bytes;      // exactly this size
  std::optional<std::uint64_t> min_bytes;  // sizes >= this
  std::optional<std::uint64_t> max_bytes;  // sizes <= this
  std::optional<bool> in_place;
};

struct Check {
  std::string name;
  CheckKind kind = CheckKind::min_bandwidth;
  int line = 0;  // where it is defined in the thresholds file, for messages
  RowSelection selection;
  // The row field compared: busbw_gbps or algbw_gbps for bandwidth checks, time_min_us,
  // time_median_us, time_p99_us or time_max_us for latency checks and host outliers on time.
  std::string metric;
  double limit = 0;             // at_least_gbps, at_most_us, or expected_gbps by kind
  double min_fraction = 0.9;    // pairwise_bandwidth
  double max_modified_z = 3.5;  // no_host_outlier (Iglewicz-Hoaglin)
};

struct Thresholds {
  std::filesystem::path source;
  std::vector<Check> checks;
};

// Throws InputError "FILE:LINE: what is wrong" on malformed YAML or an invalid check.
Thresholds read_thresholds(const std::filesystem::path& path);
Thresholds parse_thresholds(std::string_view yaml_text, const std::string& origin);

// The value of `metric` in a row, or empty when the row has none (busbw with one rank, a time
// statistic its source did not report).
// Throws std::invalid_argument for a name that is not a metric.
std::optional<double> metric_value(const ResultRow& row, std::string_view metric);
// Bandwidths are better high, times low.
bool metric_higher_is_better(std::string_view metric);

}  // namespace fb::diagnosis
