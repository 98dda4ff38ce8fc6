#include "topology/hostlist.hpp"

#include "common/text_scan.hpp"

#include <fmt/format.h>

namespace fb::topo {
namespace {

// Top-level commas separate names; commas inside brackets separate ranges.
std::vector<std::string_view> split_top_level(std::string_view expression) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < expression.size(); ++i) {
    if (expression[i] == '[') ++depth;
    if (expression[i] == ']') --depth;
    if (expression[i] == ',' && depth == 0) {
      parts.push_back(expression.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(expression.substr(start));
  return parts;
}

bool expand_one(std::string_view name, std::vector<std::string>& out, std::size_t max_hosts, std::string& error) {
  const std::size_t open = name.find('[');
  if (open == std::string_view::npos) {
    if (name.find(']') != std::string_view::npos || name.empty()) {
      error = fmt::format("a host name, got '{}'", name);
      return false;
    }
    if (out.size() >= max_hosts) {
      error = fmt::format("at most {} hosts", max_hosts);
      return false;
    }
    out.emplace_back(name);
    return true;
  }
  const std::size_t close = name.find(']', open);
  if (close == std::string_view::npos) {
    error = fmt::format("']' closing the range in '{}'", name);
    return false;
  }
  const std::string_view prefix = name.substr(0, open);
  const std::string_view suffix = name.substr(close + 1);
  for (const std::string_view range : split_fields(name.substr(open + 1, close - open - 1), ',')) {
    const std::size_t dash = range.find('-');
    const std::string_view low_text = range.substr(0, dash);
    const std::string_view high_text = dash == std::string_view::npos ? low_text : range.substr(dash + 1);
    const std::optional<std::int64_t> low = to_integer(low_text);
    const std::optional<std::int64_t> high = to_integer(high_text);
    if (!low || !high || *low < 0 || *high < *low) {
      error = fmt::format("a range LOW-HIGH of non-negative numbers, got '{}'", range);
      return false;
    }
    if (static_cast<std::uint64_t>(*high - *low) >= max_hosts) {
      error = fmt::format("at most {} hosts, got the range '{}'", max_hosts, range);
      return false;
    }
    for (std::int64_t n = *low; n <= *high; ++n) {
      const std::string expanded = fmt::format("{}{:0{}}{}", prefix, n, low_text.size(), suffix);
      if (!expand_one(expanded, out, max_hosts, error)) return false;
    }
  }
  return true;
}

}  // namespace

HostlistResult expand_hostlist(std::string_view expression, std::size_t max_hosts) {
  HostlistResult result;
  for (const std::string_view part : split_top_level(trim(expression))) {
    if (!expand_one(trim(part), result.hosts, max_hosts, result.error)) {
      result.hosts.clear();
      return result;
    }
  }
  return result;
}

}  // namespace fb::topo
