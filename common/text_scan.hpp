#pragma once
// Line and token scanning shared by every text reader (topology formats, imported logs).
//
// Whitespace between tokens is space, tab, CR, VT, FF and the UTF-8 no-break space (U+00A0).
// Fixed here, not taken from <cctype>, so that a locale cannot change how a file reads. Tabs:
// nvidia-smi separates its matrix with them and editors turn runs of spaces into them. CR: a file
// edited on Windows or a log pasted from one ends its lines in CRLF, and a stray CR inside a line
// (a progress counter that redraws itself) must not stick to a number. No-break spaces: logs
// pasted from a web page, a wiki or a chat window arrive with them between the columns, and a
// column separated by one must read like one separated by a space, not as part of a number.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace fb {

struct NumberedLine {
  std::size_t number;  // 1-based, for messages
  std::string_view text;
};

// Splits on '\n', dropping a trailing '\r' so that CRLF files read the same. A final line without
// '\n' is kept; an empty text has no lines.
std::vector<NumberedLine> split_lines(std::string_view text);
// The 1-based line holding byte `offset` (clamped to the text): parsers report offsets, people
// look for lines.
std::size_t line_number_at(std::string_view text, std::size_t offset);

std::string_view trim(std::string_view text);
std::string_view trim_start(std::string_view text);
std::vector<std::string_view> split_whitespace(std::string_view text);
// Splits on `separator`, trimming each field; keeps empty fields.
std::vector<std::string_view> split_fields(std::string_view text, char separator);
bool starts_with_ignoring_case(std::string_view text, std::string_view prefix);

// Whole-token numbers: empty when the token is not entirely a number (no sign '+', no spaces).
std::optional<double> to_double(std::string_view token);
std::optional<std::int64_t> to_integer(std::string_view token);
// Hexadecimal, with or without "0x" (GUIDs, LIDs): "0x000000000010000d", "10000d".
std::optional<std::uint64_t> to_unsigned_hex(std::string_view token);

}  // namespace fb
