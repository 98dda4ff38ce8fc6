#pragma once
// Graphviz DOT of a topology: one cluster per host, fabric switches ranked by tier, links
// labelled with type and capacity; flagged links (blocking findings) drawn red and thick.

#include "topology/graph.hpp"

#include <ostream>
#include <span>

namespace fb::topo {

void write_dot(std::ostream& out, const Graph& graph, std::span<const LinkId> flagged_links);

}  // namespace fb::topo
