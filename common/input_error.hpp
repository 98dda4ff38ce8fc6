#pragma once
// Parse errors with a location: every parser reports "FILE:LINE: expected WHAT, got WHAT".

#include "common/errors.hpp"

#include <string>
#include <string_view>

namespace fb::topo {

[[noreturn]] void throw_input_error(std::string_view file, std::size_t line,
                                    std::string_view expected, std::string_view got);

// Input text shown in a message: truncated and with control characters escaped, so a binary or
// hostile file cannot garble the terminal.
std::string quote_input(std::string_view text);

}  // namespace fb::topo
