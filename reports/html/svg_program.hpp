#pragma once
// Figures in the report come from real drawing programs (gnuplot, Graphviz dot) run as child
// processes on a script file: never through a shell, so no input text is interpreted by /bin/sh.

#include <string>
#include <string_view>
#include <vector>

namespace fb {

// Writes `script` to a private scratch file, runs `program` with `arguments` and the file's path,
// and returns the <svg> element it printed on standard output. `what` and `package` go into the
// errors: std::runtime_error when the program is missing or fails, with its own message.
std::string draw_svg(const std::string& program, const std::vector<std::string>& arguments, std::string_view script,
                     std::string_view what, std::string_view package);

// The PDF of an HTML page as headless Chromium prints it (A4/Letter per the locale, no header or
// footer). Throws std::runtime_error when chromium is missing or fails.
std::string print_html_to_pdf(std::string_view html);

// A Graphviz DOT graph drawn by `dot -Tsvg`.
std::string render_dot_svg(std::string_view dot, std::string_view what);

}  // namespace fb
