#pragma once
// Slurm's topology/tree, as topology.conf (SwitchName= lines) and topology.yaml (tree: switches:)
// state it: switches, the switches and nodes below each. Both readers build the graph here.

#include "topology/format_registry.hpp"

#include <string>
#include <vector>

namespace fb::topo {

struct SlurmSwitch {
  std::size_t line = 0;  // where the switch is defined, for messages
  std::string name;
  std::vector<std::string> hosts;
  std::vector<std::string> child_switches;
};

// Tiers from the tree (leaves have no child switches), every link nominal 4xNDR; throws InputError
// on a switch defined twice, an undefined child, a loop, more than 3 levels, or a switch in Nodes.
Graph build_slurm_tree(const SourceText& source, const std::vector<SlurmSwitch>& switches);

}  // namespace fb::topo
