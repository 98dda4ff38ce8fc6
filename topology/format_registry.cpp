#include "topology/format_registry.hpp"

#include "common/input_error.hpp"
#include "common/text_file.hpp"

#include <fmt/format.h>

namespace fb::topo {
namespace {

// Parsers check names as they go; a contradiction the graph itself catches (one name for two
// kinds of vertex) still reaches the user as an input error naming the file.
Graph parse_with(const TopologyFormat& format, const SourceText& source) {
  try {
    return format.parse(source);
  } catch (const GraphContradiction& contradiction) {
    throw InputError(fmt::format("{}: {}", source.path, contradiction.what()));
  }
}

}  // namespace

const TopologyFormat& resolve_topology_format(const SourceText& source, std::string_view format_name) {
  const TopologyFormatRegistry& formats = TopologyFormatRegistry::instance();
  if (format_name != "auto") return formats.at(format_name);
  const TopologyFormat* best = nullptr;
  int best_confidence = 0;
  for (const TopologyFormat& format : formats.entries()) {
    const int confidence = format.sniff(source.text);
    if (confidence > best_confidence) {
      best = &format;
      best_confidence = confidence;
    }
  }
  if (best == nullptr) {
    throw InputError(fmt::format("{}:1: expected one of the topology formats ({}), got none that "
                                 "matches; name one with --format",
                                 source.path, formats.names()));
  }
  return *best;
}

Graph parse_topology(const SourceText& source, std::string_view format_name) {
  return parse_with(resolve_topology_format(source, format_name), source);
}

SourceText read_topology_source(const std::string& path, const ReaderHints& hints) {
  return SourceText{path, read_text_file(path), hints};
}

Graph load_topology(const std::vector<std::string>& paths, std::string_view format_name, const ReaderHints& hints) {
  // One input is the graph as parsed: merging it into an empty graph would copy every vertex and
  // link once more, with a second graph's memory alive meanwhile (a million GPUs: 9 million links).
  if (paths.size() == 1) return parse_topology(read_topology_source(paths.front(), hints), format_name);
  Graph merged;
  for (const std::string& path : paths) {
    const Graph parsed = parse_topology(read_topology_source(path, hints), format_name);
    try {
      merged.merge(parsed);
    } catch (const GraphContradiction& contradiction) {
      throw InputError(fmt::format("{}: {}", path, contradiction.what()));
    }
  }
  return merged;
}

std::string host_name_from_path(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::size_t dot = file.find('.');
  if (dot != std::string_view::npos && dot > 0) file = file.substr(0, dot);
  return file.empty() ? std::string("host") : std::string(file);
}

}  // namespace fb::topo
