#include "importers/importer_registry.hpp"

#include "common/errors.hpp"
#include "common/text_file.hpp"

#include <fmt/format.h>

namespace fb {

std::vector<ResultSet> import_log(const std::filesystem::path& path, const ImportOptions& options) {
  return import_log_text(read_text_file(path), path, options);
}

std::vector<ResultSet> import_log_text(std::string_view text, const std::filesystem::path& origin,
                                       const ImportOptions& options) {
  const ImporterRegistry& importers = ImporterRegistry::instance();
  for (const Importer& importer : importers.entries())
    if (importer.recognizes(text)) return importer.parse(text, origin, options);
  throw InputError(
      fmt::format("{}:1: not a log format fabricbench can import (tried {})", origin.string(), importers.names()));
}

}  // namespace fb
