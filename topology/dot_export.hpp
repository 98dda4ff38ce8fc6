#pragma once
// Graphviz DOT of a topology: one cluster per host, fabric switches ranked by tier, links
// labelled with type and capacity; flagged links (blocking findings) drawn red and thick.

#include "topology/graph.hpp"

#include <ostream>
#include <span>
#include <string>
#include <string_view>

namespace fb::topo {

// A DOT double-quoted ID or label: quotes and backslashes escaped, line breaks as spaces. Names
// come from input files.
std::string dot_quoted(std::string_view text);

void write_dot(std::ostream& out, const Graph& graph, std::span<const LinkId> flagged_links);

}  // namespace fb::topo
