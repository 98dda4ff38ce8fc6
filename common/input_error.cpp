#include "common/input_error.hpp"

#include <fmt/format.h>

namespace fb {

InputError input_error_at(std::string_view file, std::size_t line, std::string_view problem) {
  return InputError(fmt::format("{}:{}: {}", file, line, problem));
}

void throw_input_error(std::string_view file, std::size_t line, std::string_view expected, std::string_view got) {
  throw input_error_at(file, line, fmt::format("expected {}, got {}", expected, got));
}

std::string quote_input(std::string_view text) {
  constexpr std::size_t max_shown = 60;
  std::string quoted = "'";
  for (std::size_t i = 0; i < text.size() && i < max_shown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x7f) {
      quoted += fmt::format("\\x{:02x}", c);
    } else {
      quoted += static_cast<char>(c);
    }
  }
  if (text.size() > max_shown) quoted += "...";
  return quoted + "'";
}

}  // namespace fb
