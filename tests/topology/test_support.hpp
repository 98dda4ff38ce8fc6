#pragma once
// Helpers shared by the topology tests.

#include "topology/format_registry.hpp"
#include "common/text_file.hpp"
#include "topology/graph.hpp"

#include <string>

namespace fb::topo::test {

inline std::string sample_path(const std::string& name) { return std::string(TOPOLOGY_SAMPLES_DIR) + "/" + name; }

inline Graph parse_sample(const std::string& name, std::string_view format = "auto") {
  const std::string path = sample_path(name);
  return parse_topology(SourceText{path, read_text_file(path)}, format);
}

inline std::size_t count_kind(const Graph& graph, VertexKind kind) {
  std::size_t count = 0;
  for (const Vertex& v : graph.vertices()) count += v.kind == kind ? 1 : 0;
  return count;
}

inline std::size_t count_links(const Graph& graph, LinkType type) {
  std::size_t count = 0;
  for (const Link& l : graph.links()) count += l.spec.type == type ? 1 : 0;
  return count;
}

}  // namespace fb::topo::test
