#include "common/text_file.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace fb {

std::string read_text_file(const std::filesystem::path& path) {
  std::optional<std::string> text = read_text(path);
  if (!text) throw InputError(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  return std::move(*text);
}

std::optional<std::string> read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  // Reading a sysfs attribute can fail after a successful open (the driver refuses it).
  if (in.bad()) return std::nullopt;
  return std::move(text).str();
}

}  // namespace fb
