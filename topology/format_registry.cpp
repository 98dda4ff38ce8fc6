#include "topology/format_registry.hpp"

#include "common/input_error.hpp"
#include "common/text_file.hpp"
#include "common/text_framing.hpp"

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

// The format whose sniff is most certain of `text`, already peeled.
const TopologyFormat& sniff_format(const SourceText& source, std::string_view text) {
  const TopologyFormatRegistry& formats = TopologyFormatRegistry::instance();
  const TopologyFormat* best = nullptr;
  int best_confidence = 0;
  for (const TopologyFormat& format : formats.entries()) {
    const int confidence = format.sniff(text);
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

}  // namespace

const TopologyFormat& resolve_topology_format(const SourceText& source, std::string_view format_name) {
  if (format_name != "auto") return TopologyFormatRegistry::instance().at(format_name);
  return sniff_format(source, peel_framing(source.text).text());
}

Graph parse_topology(const SourceText& source, std::string_view format_name) {
  // What wrapped the file (a prompt, quoting, timestamps, CRLF, ...) is peeled before any format
  // sniffs or reads it, and said once on the graph; line numbers stay the file's.
  const FramedText framed = peel_framing(source.text);
  const auto format = [&](const SourceText& text) -> const TopologyFormat& {
    if (format_name != "auto") return TopologyFormatRegistry::instance().at(format_name);
    return sniff_format(text, text.text);
  };
  if (!framed.changed()) return parse_with(format(source), source);
  const SourceText peeled{source.path, std::string(framed.text()), source.hints};
  Graph graph = parse_with(format(peeled), peeled);
  graph.add_assumption(fmt::format("{}: {}", source.path, framed.note()));
  return graph;
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
