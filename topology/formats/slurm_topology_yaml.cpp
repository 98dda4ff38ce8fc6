// Slurm topology.yaml (Slurm 25.05 and later): a list of named topologies, each a tree, a block
// or flat one; the first with `cluster_default: true` serves the whole cluster.
//
//   - topology: topo1
//     cluster_default: True
//     tree:
//       switches:
//       - switch: sw_root
//         children: leaf[1-2]
//       - switch: leaf1
//         nodes: node[01-04]
//
// Only a tree names switches: the cluster default is modelled when it is one, else the first tree;
// which one was taken, and which were left out, is recorded. Block and flat topologies group nodes
// for the scheduler only, so a file without a tree is refused saying so.

#include "topology/formats/slurm_tree.hpp"
#include "topology/hostlist.hpp"
#include "common/input_error.hpp"
#include "common/text_scan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

namespace fb::topo {
namespace {

std::size_t line_of(const YAML::Node& node) {
  return node.Mark().is_null() ? 1 : static_cast<std::size_t>(node.Mark().line) + 1;
}

std::vector<std::string> expand(const SourceText& source, const YAML::Node& value) {
  const std::string text = value.as<std::string>();
  HostlistResult expanded = expand_hostlist(text);
  if (!expanded.error.empty()) throw_input_error(source.path, line_of(value), expanded.error, quote_input(text));
  return expanded.hosts;
}

std::string kind_of(const YAML::Node& topology) {
  for (const char* kind : {"tree", "block", "flat"}) {
    if (topology[kind].IsDefined()) return kind;
  }
  return "unknown";
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): reads Slurm's topology.yaml (tree and block plugins) with each field refused at its line
Graph parse_slurm_topology_yaml(const SourceText& source) {
  YAML::Node root;
  try {
    root = YAML::Load(source.text);
  } catch (const YAML::Exception& error) {
    throw_input_error(source.path, error.mark.is_null() ? 1 : error.mark.line + 1, "well-formed YAML", error.msg);
  }
  if (!root.IsSequence() || root.size() == 0) {
    throw_input_error(source.path, 1, "a list of topologies (- topology: NAME)", "another document");
  }
  try {
    std::optional<YAML::Node> chosen;
    bool chosen_is_default = false;
    std::vector<std::string> others;
    for (const YAML::Node& topology : root) {
      if (!topology.IsMap() || !topology["topology"].IsDefined()) {
        throw_input_error(source.path, line_of(topology), "a topology entry starting with topology: NAME",
                          "another entry");
      }
      const bool is_default = topology["cluster_default"].IsDefined() && topology["cluster_default"].as<bool>();
      const bool is_tree = kind_of(topology) == "tree";
      if (is_tree && (!chosen || (is_default && !chosen_is_default))) {
        if (chosen) others.push_back(fmt::format("tree '{}'", (*chosen)["topology"].as<std::string>()));
        chosen = topology;
        chosen_is_default = is_default;
      } else {
        others.push_back(fmt::format("{} '{}'", kind_of(topology), topology["topology"].as<std::string>()));
      }
    }
    if (!chosen) {
      throw_input_error(source.path, 1, "a tree topology (tree: switches:) to model",
                        fmt::format("only {}: they group nodes for the scheduler without naming switches or links",
                                    fmt::join(others, ", ")));
    }
    std::vector<SlurmSwitch> switches;
    const YAML::Node listed = (*chosen)["tree"]["switches"];
    if (!listed.IsSequence())
      throw_input_error(source.path, line_of((*chosen)["tree"]), "tree: switches: a list", "none");
    for (const YAML::Node& entry : listed) {
      if (!entry["switch"].IsDefined()) throw_input_error(source.path, line_of(entry), "switch: NAME", "none");
      SlurmSwitch sw{line_of(entry), entry["switch"].as<std::string>(), {}, {}};
      if (entry["nodes"].IsDefined()) sw.hosts = expand(source, entry["nodes"]);
      if (entry["children"].IsDefined()) sw.child_switches = expand(source, entry["children"]);
      switches.push_back(std::move(sw));
    }
    Graph graph = build_slurm_tree(source, switches);
    if (!others.empty()) {
      graph.add_assumption(fmt::format(
          "{}: modelled tree '{}'{}; not modelled: {}", source.path, (*chosen)["topology"].as<std::string>(),
          chosen_is_default ? " (the cluster default)" : " (the cluster default is no tree)", fmt::join(others, ", ")));
    }
    return graph;
  } catch (const YAML::Exception& error) {
    throw_input_error(source.path, error.mark.is_null() ? 1 : error.mark.line + 1, "a topology.yaml value", error.msg);
  }
}

int sniff_slurm_topology_yaml(std::string_view text) {
  for (const NumberedLine& line : split_lines(text.substr(0, 4096))) {
    const std::string_view content = trim(line.text);
    if (content.empty() || content.front() == '#') continue;
    return content.starts_with("- topology:") ? 95 : 0;
  }
  return 0;
}

const Registrar<TopologyFormat> registrar{{"slurm-yaml",
                                           "Slurm topology.yaml (the tree topology: switches, children, nodes)",
                                           sniff_slurm_topology_yaml, parse_slurm_topology_yaml}};

}  // namespace
}  // namespace fb::topo
