#pragma once
// Errors in an input file with their place: every reader reports "FILE:LINE: PROBLEM", so that an
// editor or a terminal can jump to the line.

#include "common/errors.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace fb {

// "FILE:LINE: PROBLEM", to throw.
InputError input_error_at(std::string_view file, std::size_t line, std::string_view problem);

// "FILE:LINE: expected EXPECTED, got GOT": for readers that know what should have been there.
[[noreturn]] void throw_input_error(std::string_view file, std::size_t line, std::string_view expected,
                                    std::string_view got);

// Input text shown in a message: truncated and with control characters escaped, so a binary or
// hostile file cannot garble the terminal.
std::string quote_input(std::string_view text);

// Text from outside (a file name, a field) as printed: every byte outside printable ASCII as \xHH,
// nothing cut.
std::string escape_control_characters(std::string_view text);

}  // namespace fb
