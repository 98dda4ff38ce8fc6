// Input text on its way to a terminal: control characters escaped, everything else as it is.

#include "common/console_text.hpp"

#include <gtest/gtest.h>

namespace fb {
namespace {

TEST(ConsoleText, ControlCharactersAreShownEscaped) {
  // ESC [2J clears the screen, ESC ]0; retitles the window, a newline would forge a line.
  EXPECT_EQ(console_text("run\x1b[2J\x1b]0;owned\x07\nFAKE\r\x7f"), "run\\x1b[2J\\x1b]0;owned\\x07\\x0aFAKE\\x0d\\x7f");
  // A C1 CSI (U+009B) as UTF-8; a backslash doubled so the escapes read back unambiguously.
  EXPECT_EQ(console_text("a\xc2\x9b"
                         "31mb\\x1b"),
            "a\\u009b31mb\\\\x1b");
  // UTF-8 text is left as it is.
  EXPECT_EQ(console_text("n\xc3\xb6"
                         "de-01 \xe2\x80\x94 \xc2\xb5s"),
            "n\xc3\xb6"
            "de-01 \xe2\x80\x94 \xc2\xb5s");
  EXPECT_EQ(console_text(""), "");
}

}  // namespace
}  // namespace fb
