#include "diagnosis/thresholds.hpp"

#include "common/spelling.hpp"
#include "common/errors.hpp"
#include "common/input_error.hpp"
#include "common/sizes.hpp"
#include "common/text_file.hpp"
#include "results/result_row.hpp"
#include "results/results_io.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <utility>

namespace fb::diagnosis {
namespace {

constexpr std::array<std::pair<CheckKind, std::string_view>, 5> kind_names{{
    {CheckKind::min_bandwidth, "min_bandwidth"},
    {CheckKind::max_latency, "max_latency"},
    {CheckKind::zero_wrong, "zero_wrong"},
    {CheckKind::no_host_outlier, "no_host_outlier"},
    {CheckKind::pairwise_bandwidth, "pairwise_bandwidth"},
}};

const std::map<std::string_view, double (*)(const ResultRow&)> time_metrics{
    {"time_min_us", [](const ResultRow& r) { return r.time_min_us; }},
    {"time_median_us", [](const ResultRow& r) { return r.time_median_us; }},
    {"time_p99_us", [](const ResultRow& r) { return r.time_p99_us; }},
    {"time_max_us", [](const ResultRow& r) { return r.time_max_us; }},
};

// Every key a check may have, whatever its kind.
const std::vector<std::string> check_keys{"kind",          "name",        "op",         "bytes",
                                          "min_bytes",     "max_bytes",   "in_place",   "metric",
                                          "at_least_gbps", "statistic",   "at_most_us", "max_modified_z",
                                          "expected_gbps", "min_fraction"};

bool is_check_key(const std::string& key) {
  return std::find(check_keys.begin(), check_keys.end(), key) != check_keys.end();
}

// Reads one check's YAML mapping. Every error names the line of the offending node.
class CheckReader {
 public:
  CheckReader(const YAML::Node& node, const std::string& origin) : node_(node), origin_(origin) {}

  [[noreturn]] void fail(const YAML::Node& at, std::string_view what) const {
    throw input_error_at(origin_, static_cast<std::size_t>(at.Mark().line) + 1, what);
  }

  template <class T>
  std::optional<T> optional_scalar(const std::string& key) {
    used_.insert(key);
    const YAML::Node value = node_[key];
    if (!value) return std::nullopt;
    if (!value.IsScalar()) fail(value, fmt::format("'{}' must be a single value", key));
    T parsed;
    try {
      parsed = value.as<T>();
    } catch (const YAML::Exception&) {
      fail(value, fmt::format("'{}': cannot read '{}' as {}", key, value.Scalar(), type_name<T>()));
    }
    // YAML spells infinities and NaN (.inf, .nan); no limit is either, and NaN fails no comparison.
    if constexpr (std::is_same_v<T, double>)
      if (!std::isfinite(parsed)) fail(value, fmt::format("'{}': {} is not a finite number", key, value.Scalar()));
    return parsed;
  }

  template <class T>
  T required_scalar(const std::string& key, std::string_view kind) {
    std::optional<T> value = optional_scalar<T>(key);
    if (!value) {
      // A mistyped key is the likelier cause: named at its own line, with the key it misses.
      for (const auto& entry : node_) {
        const std::string typed = entry.first.as<std::string>();
        if (!is_check_key(typed) && closest_spelling(typed, {key}))
          fail(entry.first, fmt::format("unknown key '{}' for this check; did you mean '{}'?", typed, key));
      }
      fail(node_, fmt::format("a {} check needs '{}'", kind, key));
    }
    return *value;
  }

  std::optional<std::uint64_t> optional_size(const std::string& key) {
    const std::optional<std::string> text = optional_scalar<std::string>(key);
    if (!text) return std::nullopt;
    try {
      return parse_size_bytes(*text);
    } catch (const UsageError& e) { fail(node_[key], fmt::format("'{}': {}", key, e.what())); }
  }

  void reject_unknown_and_repeated_keys() const {
    std::set<std::string> seen;
    for (const auto& entry : node_) {
      const std::string key = entry.first.as<std::string>();
      if (!used_.contains(key))
        fail(entry.first, fmt::format("unknown key '{}' for this check{}", key,
                                      is_check_key(key) ? "" : did_you_mean(key, check_keys)));
      // yaml-cpp keeps both and looks up the first: the value the author meant may be the other.
      if (!seen.insert(key).second) fail(entry.first, fmt::format("key '{}' appears twice in this check", key));
    }
  }

  const YAML::Node& node() const { return node_; }

 private:
  template <class T>
  static std::string_view type_name() {
    if constexpr (std::is_same_v<T, double>) return "a number";
    if constexpr (std::is_same_v<T, bool>) return "true or false";
    return "text";
  }

  const YAML::Node node_;
  const std::string& origin_;
  std::set<std::string> used_;
};

// NOLINTNEXTLINE(readability-function-cognitive-complexity): reads one check's fields by kind, each refused with its line; the kinds share most fields
Check read_check(const YAML::Node& node, const std::string& origin) {
  CheckReader reader(node, origin);
  if (!node.IsMap()) reader.fail(node, "each check must be a mapping with at least 'kind'");
  Check check;
  check.line = node.Mark().line + 1;
  const std::string kind = reader.required_scalar<std::string>("kind", "any");
  const auto known =
      std::find_if(kind_names.begin(), kind_names.end(), [&](const auto& k) { return k.second == kind; });
  if (known == kind_names.end())
    reader.fail(node["kind"], fmt::format("unknown kind '{}' (min_bandwidth, max_latency, zero_wrong, "
                                          "no_host_outlier, pairwise_bandwidth){}",
                                          kind,
                                          did_you_mean(kind, {"min_bandwidth", "max_latency", "zero_wrong",
                                                              "no_host_outlier", "pairwise_bandwidth"})));
  check.kind = known->first;
  check.selection.op = reader.optional_scalar<std::string>("op").value_or("");
  check.selection.bytes = reader.optional_size("bytes");
  check.selection.min_bytes = reader.optional_size("min_bytes");
  check.selection.max_bytes = reader.optional_size("max_bytes");
  check.selection.in_place = reader.optional_scalar<bool>("in_place");
  // A size range no size can fall in selects nothing on any results: the file is wrong, not the run.
  const RowSelection& sizes = check.selection;
  if (sizes.min_bytes && sizes.max_bytes && *sizes.min_bytes > *sizes.max_bytes)
    reader.fail(node["min_bytes"], "'min_bytes' is larger than 'max_bytes': no size is in between");
  if (sizes.bytes &&
      ((sizes.min_bytes && *sizes.bytes < *sizes.min_bytes) || (sizes.max_bytes && *sizes.bytes > *sizes.max_bytes)))
    reader.fail(node["bytes"], "'bytes' lies outside 'min_bytes'..'max_bytes'");

  const auto require_metric = [&](std::string default_metric, bool bandwidth_only) {
    check.metric = reader.optional_scalar<std::string>("metric").value_or(std::move(default_metric));
    const bool is_bandwidth = check.metric == "busbw_gbps" || check.metric == "algbw_gbps";
    if (!is_bandwidth && (bandwidth_only || !time_metrics.contains(check.metric)))
      reader.fail(node["metric"], fmt::format("metric '{}' is not one of {}", check.metric,
                                              bandwidth_only ? "busbw_gbps, algbw_gbps"
                                                             : "busbw_gbps, algbw_gbps, time_min_us, time_median_us, "
                                                               "time_p99_us, time_max_us"));
  };
  switch (check.kind) {
    case CheckKind::min_bandwidth:
      require_metric("busbw_gbps", true);
      check.limit = reader.required_scalar<double>("at_least_gbps", kind);
      if (check.limit < 0) reader.fail(node["at_least_gbps"], "'at_least_gbps' must not be negative");
      break;
    case CheckKind::max_latency: {
      const std::string statistic = reader.optional_scalar<std::string>("statistic").value_or("median");
      check.metric = fmt::format("time_{}_us", statistic);
      if (!time_metrics.contains(check.metric))
        reader.fail(node["statistic"], fmt::format("statistic '{}' is not one of min, median, p99, max", statistic));
      check.limit = reader.required_scalar<double>("at_most_us", kind);
      if (check.limit <= 0) reader.fail(node["at_most_us"], "'at_most_us' must be positive");
      break;
    }
    case CheckKind::zero_wrong:
    case CheckKind::planned_work: break;
    case CheckKind::no_host_outlier:
      require_metric("algbw_gbps", false);
      check.max_modified_z = reader.optional_scalar<double>("max_modified_z").value_or(check.max_modified_z);
      if (check.max_modified_z <= 0) reader.fail(node["max_modified_z"], "'max_modified_z' must be positive");
      break;
    case CheckKind::pairwise_bandwidth:
      require_metric("algbw_gbps", true);
      check.limit = reader.required_scalar<double>("expected_gbps", kind);
      check.min_fraction = reader.optional_scalar<double>("min_fraction").value_or(check.min_fraction);
      if (check.limit <= 0) reader.fail(node["expected_gbps"], "'expected_gbps' must be positive");
      if (check.min_fraction <= 0 || check.min_fraction > 1)
        reader.fail(node["min_fraction"], "'min_fraction' must be in (0, 1]");
      break;
  }
  check.name = reader.optional_scalar<std::string>("name").value_or(
      fmt::format("{}{}", kind, check.selection.op.empty() ? "" : " " + check.selection.op));
  reader.reject_unknown_and_repeated_keys();
  return check;
}

}  // namespace

std::string_view name_of(CheckKind kind) {
  if (kind == CheckKind::planned_work) return "planned_work";
  for (const auto& [k, name] : kind_names)
    if (k == kind) return name;
  return "unknown";
}

std::optional<double> metric_value(const ResultRow& row, std::string_view metric) {
  if (metric == "busbw_gbps") return row.busbw_gbps;
  if (metric == "algbw_gbps") return row.algbw_gbps;
  const auto time = time_metrics.find(metric);
  if (time == time_metrics.end()) throw std::invalid_argument(fmt::format("'{}' is not a metric", metric));
  if (!reports_statistic(row, metric)) return std::nullopt;
  return time->second(row);
}

bool metric_higher_is_better(std::string_view metric) { return metric.ends_with("_gbps"); }

Thresholds parse_thresholds(std::string_view yaml_text, const std::string& origin) {
  // yaml-cpp reports what it cannot load or convert (a key that is not text, a list where a number
  // belongs) by throwing; every such place is bad input, with the line its mark gives.
  try {
    const YAML::Node root = YAML::Load(std::string(yaml_text));
    if (!root.IsMap() || !root["checks"])
      throw input_error_at(origin, static_cast<std::size_t>(root.Mark().line) + 1,
                           "expected a mapping with a 'checks' list");
    bool checks_seen = false;
    for (const auto& entry : root) {
      const std::string key = entry.first.as<std::string>();
      if (key != "checks")
        throw input_error_at(origin, static_cast<std::size_t>(entry.first.Mark().line) + 1,
                             fmt::format("unknown top-level key '{}' (only 'checks')", key));
      if (std::exchange(checks_seen, true))
        throw input_error_at(origin, static_cast<std::size_t>(entry.first.Mark().line) + 1, "'checks' appears twice");
    }
    const YAML::Node checks = root["checks"];
    if (!checks.IsSequence() || checks.size() == 0)
      throw input_error_at(origin, static_cast<std::size_t>(checks.Mark().line) + 1,
                           "'checks' must be a non-empty list");
    Thresholds thresholds;
    thresholds.source = origin;
    for (const auto& node : checks) thresholds.checks.push_back(read_check(node, origin));
    return thresholds;
  } catch (const YAML::Exception& e) { throw input_error_at(origin, static_cast<std::size_t>(e.mark.line) + 1, e.msg); }
}

Thresholds read_thresholds(const std::filesystem::path& path) {
  return parse_thresholds(read_text_file(path), path.string());
}

}  // namespace fb::diagnosis
