#include "common/console_text.hpp"

#include <fmt/format.h>

namespace fb {

std::string console_text(std::string_view text) {
  std::string shown;
  shown.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\\') {
      shown += "\\\\";
    } else if (byte < 0x20 || byte == 0x7f) {
      shown += fmt::format("\\x{:02x}", byte);
    } else if (byte == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      // A C1 control in UTF-8 (0x9b alone is a CSI to some terminals).
      shown += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[++i]));
    } else {
      shown += static_cast<char>(byte);
    }
  }
  return shown;
}

}  // namespace fb
