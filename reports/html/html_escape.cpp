#include "reports/html/html_escape.hpp"

namespace fb {

std::string escape_markup(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&#39;"; break;
      case '\t':
      case '\n':
      case '\r': escaped += c; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
          escaped += "\xef\xbf\xbd";
        else
          escaped += c;
    }
  }
  return escaped;
}

std::string path_markup(std::string_view path) {
  std::string html = "<span class=\"path\">";
  std::size_t piece = 0;
  for (std::size_t i = 0; i < path.size(); ++i)
    if (std::string_view("/_-.:").find(path[i]) != std::string_view::npos) {
      html += escape_markup(path.substr(piece, i + 1 - piece)) + "<wbr>";
      piece = i + 1;
    }
  return html + escape_markup(path.substr(piece)) + "</span>";
}

}  // namespace fb
