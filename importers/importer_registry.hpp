#pragma once
// Importers turn logs users already have (nccl-tests, OSU micro-benchmarks, Google Benchmark,
// perftest) into fabricbench result sets. Each format is one file under formats/ that registers
// itself with a sniffer (does this text look like my format?) and a parser. What a log does not
// say and a parser infers is recorded in Provenance::assumptions; the caller prints it as a warning.

#include "common/registry.hpp"
#include "results/results_io.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fb {

// What a log may not say and the user can tell the importer.
struct ImportOptions {
  // OSU collective logs do not print the process count; a pasted nccl-tests table may not either.
  std::optional<int> nranks;
};

struct Importer {
  static constexpr std::string_view registry_kind = "log format";
  std::string name;     // the format, as messages name it; the rows' backend is the tool (nccl-tests, gbench, ...)
  std::string summary;  // the tool and its output, for help texts
  // Cheap and specific: true only for text this importer understands (its banner or header).
  bool (*recognizes)(std::string_view text);
  // `origin` is the file's path, for messages ("FILE:LINE: ...") and what the file name tells.
  // One result set per run in the file (a log may hold several runs one after the other).
  // Throws InputError naming the line of anything malformed, truncated or unsupported.
  std::vector<ResultSet> (*parse)(std::string_view text, const std::filesystem::path& origin,
                                  const ImportOptions& options);
};

// Filled by a Registrar<Importer> in each format's file; formats are tried in its name order.
using ImporterRegistry = Registry<Importer>;

// Reads `path`, picks the importer that recognises it and parses it. Throws InputError when no
// importer recognises the file (naming the formats it tried) or when parsing fails.
std::vector<ResultSet> import_log(const std::filesystem::path& path, const ImportOptions& options);

// The same for text already in memory; `origin` names it in messages. What wrapped the log
// (common/text_framing.hpp) is peeled before any importer sees it and recorded as an assumption.
std::vector<ResultSet> import_log_text(std::string_view text, const std::filesystem::path& origin,
                                       const ImportOptions& options);

}  // namespace fb
