#pragma once
// Text that came from input (a plan's names, a results file's run id, a store's hosts) on its way
// to a terminal: control characters would move the cursor, clear the screen or retitle the
// window, and a newline would forge a line of the report. They are shown escaped instead.

#include <string>
#include <string_view>

namespace fb {

// `text` with every C0 control character, DEL and C1 control (U+0080..U+009F, as UTF-8) written as
// \xHH (C1 as \u0080..\u009f) and a backslash as \\, so the escaped text reads back unambiguously;
// everything else, UTF-8 included, as it is.
std::string console_text(std::string_view text);

}  // namespace fb
