#include "cli/topology_input.hpp"

#include <fmt/format.h>

namespace fb::cli {

topo::Graph load_topology_with_warnings(const std::vector<std::string>& files, const std::string& format,
                                        const topo::ReaderHints& hints) {
  topo::Graph graph = topo::load_topology(files, format, hints);
  print_assumption_warnings(graph);
  return graph;
}

void print_assumption_warnings(const topo::Graph& graph) {
  for (const std::string& assumption : graph.assumptions())
    fmt::print(stderr, "fabricbench: warning: {}\n", assumption);
}

}  // namespace fb::cli
