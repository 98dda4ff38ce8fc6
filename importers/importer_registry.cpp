#include "importers/importer_registry.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>


namespace fb {

std::vector<Importer>& importer_registry() {
  static std::vector<Importer> importers;
  return importers;
}

std::vector<ResultSet> import_log(const std::filesystem::path& path, const ImportOptions& options) {
  return import_log_text(read_text_file(path), path, options);
}

std::vector<ResultSet> import_log_text(std::string_view text, const std::filesystem::path& origin, const ImportOptions& options) {
  std::string tried;
  for (const Importer& importer : importer_registry()) {
    if (importer.recognizes(text)) return importer.parse(text, origin, options);
    tried += (tried.empty() ? "" : ", ") + importer.name;
  }
  throw InputError(fmt::format("{}:1: not a log format fabricbench can import (tried {})", origin.string(), tried));
}

}  // namespace fb
