#pragma once
// Topology inputs as every command loads them: what a reader assumed (a link rate, an NVLink
// generation, a NUMA node) is printed as a warning, so no guessed number passes as a read one.

#include "topology/format_registry.hpp"

#include <string>
#include <vector>

namespace fb::cli {

// load_topology, then one "fabricbench: warning: FILE: ..." line on stderr per assumption.
topo::Graph load_topology_with_warnings(const std::vector<std::string>& files, const std::string& format = "auto",
                                        const topo::ReaderHints& hints = {});

void print_assumption_warnings(const topo::Graph& graph);

}  // namespace fb::cli
