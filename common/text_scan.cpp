#include "common/text_scan.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <type_traits>

namespace fb {
namespace {

constexpr std::string_view no_break_space = "\xc2\xa0";

// The length of the whitespace at the start of `text`: 0, 1, or 2 for a no-break space.
std::size_t space_at(std::string_view text) {
  if (text.empty()) return 0;
  switch (text.front()) {
    case ' ':
    case '\t':
    case '\r':
    case '\v':
    case '\f':
    case '\n': return 1;
    default: return text.starts_with(no_break_space) ? no_break_space.size() : 0;
  }
}

// The length of the whitespace at the end of `text`.
std::size_t space_before_end(std::string_view text) {
  if (text.ends_with(no_break_space)) return no_break_space.size();
  return text.empty() ? 0 : space_at(text.substr(text.size() - 1));
}

template <typename Number>
std::optional<Number> whole_token(std::string_view token, int base = 10) {
  Number value{};
  const auto [end, ec] = [&] {
    if constexpr (std::is_integral_v<Number>)
      return std::from_chars(token.data(), token.data() + token.size(), value, base);
    else
      return std::from_chars(token.data(), token.data() + token.size(), value);
  }();
  if (token.empty() || ec != std::errc{} || end != token.data() + token.size()) return std::nullopt;
  return value;
}

}  // namespace

std::vector<NumberedLine> split_lines(std::string_view text) {
  std::vector<NumberedLine> lines;
  std::size_t number = 1;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.push_back({number++, line});
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

std::size_t line_number_at(std::string_view text, std::size_t offset) {
  const std::string_view before = text.substr(0, offset);
  return 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
}

std::string_view trim_start(std::string_view text) {
  while (const std::size_t n = space_at(text)) text.remove_prefix(n);
  return text;
}

std::string_view trim(std::string_view text) {
  text = trim_start(text);
  while (const std::size_t n = space_before_end(text)) text.remove_suffix(n);
  return text;
}

std::vector<std::string_view> split_whitespace(std::string_view text) {
  std::vector<std::string_view> tokens;
  while (true) {
    text = trim_start(text);
    if (text.empty()) return tokens;
    std::size_t length = 0;
    while (length < text.size() && space_at(text.substr(length)) == 0) ++length;
    tokens.push_back(text.substr(0, length));
    text.remove_prefix(length);
  }
}

std::vector<std::string_view> split_fields(std::string_view text, char separator) {
  std::vector<std::string_view> fields;
  while (true) {
    const std::size_t end = text.find(separator);
    fields.push_back(trim(text.substr(0, end)));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return fields;
}

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

std::optional<double> to_double(std::string_view token) { return whole_token<double>(token); }

std::optional<std::int64_t> to_integer(std::string_view token) { return whole_token<std::int64_t>(token); }

std::optional<std::uint64_t> to_unsigned_hex(std::string_view token) {
  if (token.starts_with("0x") || token.starts_with("0X")) token.remove_prefix(2);
  return whole_token<std::uint64_t>(token, 16);
}

}  // namespace fb
