#include "common/input_error.hpp"

#include <fmt/format.h>

namespace fb {

InputError input_error_at(std::string_view file, std::size_t line, std::string_view problem) {
  return InputError(fmt::format("{}:{}: {}", file, line, problem));
}

void throw_input_error(std::string_view file, std::size_t line, std::string_view expected, std::string_view got) {
  throw input_error_at(file, line, fmt::format("expected {}, got {}", expected, got));
}

std::string escape_control_characters(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f)
      escaped += fmt::format("\\x{:02x}", byte);
    else
      escaped += c;
  }
  return escaped;
}

std::string quote_input(std::string_view text) {
  constexpr std::size_t max_shown = 60;
  std::string quoted = "'" + escape_control_characters(text.substr(0, max_shown));
  if (text.size() > max_shown) quoted += "...";
  return quoted + "'";
}

}  // namespace fb
