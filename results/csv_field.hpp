#pragma once
// One quoting rule for every CSV fabricbench writes (results, comparisons), the one its reader
// (libfccp's double_quote_escape<',', '"'>) undoes: a field holding a comma, a quote or a line
// break is enclosed in quotes, with its quotes doubled; any other is written as it is. A
// hand-made row once left "spread not available, beyond default bound" unquoted, one column more
// in every row than in the header.

#include <string>
#include <string_view>

namespace fb {

inline std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted += '"';
}

}  // namespace fb
