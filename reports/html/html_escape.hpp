#pragma once
// Escaping for text that came from an input (host names, file names, environment values) before
// it goes into HTML or XML, and for the labels handed to gnuplot.

#include <string>
#include <string_view>

namespace fb {

// Escapes & < > " ' so the text is inert in element content and in quoted attributes of HTML and
// XML. Control characters that XML 1.0 forbids (all below 0x20 except tab, newline, return)
// become U+FFFD, so a stray byte in a log cannot make a JUnit file unreadable.
std::string escape_markup(std::string_view text);

// A file name or path, escaped, with a line-break opportunity (<wbr>) after each of its separators
// ('/', '_', '-', '.', ':'), in a span of class "path": a narrow column wraps it between its
// pieces rather than inside a word.
std::string path_markup(std::string_view path);

}  // namespace fb
