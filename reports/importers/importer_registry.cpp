#include "importers/importer_registry.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace fb {

std::vector<Importer>& importer_registry() {
  static std::vector<Importer> importers;
  return importers;
}

ResultSet import_log(const std::filesystem::path& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::string tried;
  for (const Importer& importer : importer_registry()) {
    if (importer.recognizes(text)) return importer.parse(text, path, options);
    tried += (tried.empty() ? "" : ", ") + importer.name;
  }
  throw InputError(fmt::format("{}:1: not a log format fabricbench can import (tried {})", path.string(), tried));
}

}  // namespace fb
