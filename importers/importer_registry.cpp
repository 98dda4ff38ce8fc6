#include "importers/importer_registry.hpp"

#include "common/errors.hpp"
#include "common/text_file.hpp"
#include "common/text_framing.hpp"

#include <fmt/format.h>

namespace fb {

std::vector<ResultSet> import_log(const std::filesystem::path& path, const ImportOptions& options) {
  return import_log_text(read_text_file(path), path, options);
}

std::vector<ResultSet> import_log_text(std::string_view text, const std::filesystem::path& origin,
                                       const ImportOptions& options) {
  const ImporterRegistry& importers = ImporterRegistry::instance();
  // Every format is recognised and read without what wrapped the log (launcher tags, timestamps,
  // quoting, ...); each run says once what was peeled.
  const FramedText framed = peel_framing(text);
  for (const Importer& importer : importers.entries()) {
    if (!importer.recognizes(framed.text())) continue;
    std::vector<ResultSet> runs = importer.parse(framed.text(), origin, options);
    if (framed.changed())
      for (ResultSet& run : runs) run.provenance.assumptions.push_back(framed.note());
    return runs;
  }
  throw InputError(
      fmt::format("{}:1: not a log format fabricbench can import (tried {})", origin.string(), importers.names()));
}

}  // namespace fb
