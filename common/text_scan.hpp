#pragma once
// Line-oriented scanning shared by the text parsers: numbered lines and whitespace tokens.

#include <cstddef>
#include <string_view>
#include <vector>

namespace fb::topo {

struct NumberedLine {
  std::size_t number;  // 1-based
  std::string_view text;
};

// Splits on '\n', dropping a trailing '\r', so that Windows-edited files read the same.
std::vector<NumberedLine> split_lines(std::string_view text);
std::string_view trim(std::string_view text);
std::vector<std::string_view> split_whitespace(std::string_view text);
// Splits on `separator`, trimming each field; keeps empty fields.
std::vector<std::string_view> split_fields(std::string_view text, char separator);
bool starts_with_ignoring_case(std::string_view text, std::string_view prefix);
// Parses all of `text` as a non-negative integer; false when it is not one.
bool parse_non_negative(std::string_view text, long long& value);

}  // namespace fb::topo
