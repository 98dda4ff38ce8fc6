#include "importers/text_lines.hpp"

#include "results/results_io.hpp"

#include <cmath>

#include <charconv>

namespace fb {

std::vector<TextLine> split_lines(std::string_view text) {
  std::vector<TextLine> lines;
  int number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({++number, line});
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

std::string_view without_launcher_tag(std::string_view line) {
  // "[JOBID,RANK]<stdout>:" or "<stderr>:", digits only between the brackets.
  if (!line.starts_with('[')) return line;
  const std::size_t close = line.find(']');
  if (close == std::string_view::npos || line.find_first_not_of("0123456789,", 1) != close) return line;
  for (const std::string_view stream : {"<stdout>:", "<stderr>:"})
    if (line.substr(close + 1).starts_with(stream)) return line.substr(close + 1 + stream.size());
  return line;
}

std::vector<ResultSet> one_run(ResultSet results) {
  std::vector<ResultSet> runs;
  runs.push_back(std::move(results));
  return runs;
}

void number_runs(std::vector<ResultSet>& runs) {
  if (runs.size() < 2) return;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    runs[i].provenance.run_id += "-run" + std::to_string(i + 1);
    for (ResultRow& row : runs[i].rows) row.run_id = runs[i].provenance.run_id;
  }
}

std::vector<std::string_view> split_whitespace(std::string_view text) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) tokens.push_back(text.substr(start, i - start));
  }
  return tokens;
}

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::optional<double> to_double(std::string_view token) {
  double value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc{} || end != token.data() + token.size() || token.empty()) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> whole_number(double value) {
  constexpr double two_to_63 = 9223372036854775808.0;
  if (!(value >= 0) || value >= two_to_63 || value != std::floor(value)) return std::nullopt;
  return static_cast<std::uint64_t>(value);
}

std::optional<std::int64_t> to_integer(std::string_view token) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc{} || end != token.data() + token.size() || token.empty()) return std::nullopt;
  return value;
}

double gbps_from(std::uint64_t bytes, double time_us) {
  return time_us > 0 ? static_cast<double>(bytes) / (time_us * 1e3) : 0.0;
}

}  // namespace fb
