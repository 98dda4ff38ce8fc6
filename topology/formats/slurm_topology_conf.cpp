// Slurm topology.conf for the tree plugin:
//
//   SwitchName=leaf01 Nodes=node[01-16]
//   SwitchName=spine01 Switches=leaf[01-02] LinkSpeed=100
//
// The file names switches and what hangs below them but states no capacities: links take the
// nominal 4xNDR InfiniBand rate, marked nominal so that a merged ibnetdiscover dump overrides it,
// and recorded as an assumption. The other plugins' files (topology/block: BlockName=,
// topology/ring: RingName=) group nodes for the scheduler without naming switches or links: they
// are recognised and refused with a line saying so. topology.yaml has its own reader.

#include "topology/formats/slurm_tree.hpp"
#include "topology/hostlist.hpp"
#include "common/input_error.hpp"
#include "common/text_scan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <optional>

namespace fb::topo {
namespace {

// What the topology/block and topology/ring plugins' lines and topology.yaml start with, and why
// they are not read.
std::optional<std::string_view> other_plugin(std::string_view content) {
  if (starts_with_ignoring_case(content, "BlockName=") || starts_with_ignoring_case(content, "BlockSizes=")) {
    return "a topology/block file (BlockName=): it groups nodes for the scheduler without naming switches or links, "
           "so there is no fabric to model";
  }
  if (starts_with_ignoring_case(content, "RingName=")) {
    return "a topology/ring file (RingName=): it orders nodes for the scheduler without naming switches or links, "
           "so there is no fabric to model";
  }
  return std::nullopt;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): reads each topology.conf line's keys (SwitchName, Switches, Nodes, LinkSpeed) and refuses the others at their line
std::vector<SlurmSwitch> read_switch_lines(const SourceText& source) {
  std::vector<SlurmSwitch> switches;
  for (const NumberedLine& line : split_lines(source.text)) {
    std::string_view text = line.text.substr(0, line.text.find('#'));
    if (trim(text).empty()) continue;
    if (const std::optional<std::string_view> plugin = other_plugin(trim(text))) {
      throw_input_error(source.path, line.number, "a topology/tree topology.conf (SwitchName=)",
                        fmt::format("{}; or give an ibnetdiscover dump or a cluster spec YAML", *plugin));
    }
    SlurmSwitch entry{line.number, {}, {}, {}};
    for (const std::string_view token : split_whitespace(text)) {
      const std::size_t equals = token.find('=');
      if (equals == std::string_view::npos || equals == 0 || equals + 1 == token.size()) {
        throw_input_error(source.path, line.number, "KEY=VALUE", quote_input(token));
      }
      const std::string_view key = token.substr(0, equals);
      const std::string_view value = token.substr(equals + 1);
      const auto expand = [&](std::vector<std::string>& out) {
        HostlistResult expanded = expand_hostlist(value);
        if (!expanded.error.empty()) throw_input_error(source.path, line.number, expanded.error, quote_input(value));
        out.insert(out.end(), expanded.hosts.begin(), expanded.hosts.end());
      };
      if (starts_with_ignoring_case(key, "SwitchName") && key.size() == 10) {
        entry.name = value;
      } else if (starts_with_ignoring_case(key, "Nodes") && key.size() == 5) {
        expand(entry.hosts);
      } else if (starts_with_ignoring_case(key, "Switches") && key.size() == 8) {
        expand(entry.child_switches);
      } else if (!(starts_with_ignoring_case(key, "LinkSpeed") && key.size() == 9)) {
        throw_input_error(source.path, line.number, "SwitchName, Nodes, Switches or LinkSpeed", quote_input(key));
      }
    }
    if (entry.name.empty()) throw_input_error(source.path, line.number, "SwitchName=NAME on every line", "none");
    switches.push_back(std::move(entry));
  }
  if (switches.empty()) throw_input_error(source.path, 1, "at least one SwitchName= line", "none");
  return switches;
}

}  // namespace

namespace {

// Nodes listed under more than one leaf: placed under the first (build_slurm_tree), each named
// in a warning up to a limit, then counted.
void state_nodes_under_several_leaves(Graph& graph, const std::string& path,
                                      const std::map<std::string, std::vector<std::string>>& switches_of_host) {
  constexpr std::size_t max_named_nodes = 16;
  std::size_t named = 0;
  std::size_t repeated = 0;
  for (const auto& [host, switches] : switches_of_host) {
    if (switches.size() < 2) continue;
    ++repeated;
    if (++named > max_named_nodes) continue;
    graph.add_assumption(
        fmt::format("{}: node {} is listed under {} leaf switches ({}): placed once, under {}, where it "
                    "is listed first (Slurm places a node under one leaf)",
                    path, host, switches.size(), fmt::join(switches, ", "), switches.front()));
  }
  if (repeated > max_named_nodes) {
    graph.add_assumption(
        fmt::format("{}: {} more nodes listed under several leaf switches, each placed under the first", path,
                    repeated - max_named_nodes));
  }
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): resolves switch names into a tree, refusing cycles, duplicates and unknown names at their lines
Graph build_slurm_tree(const SourceText& source, const std::vector<SlurmSwitch>& lines) {
  std::map<std::string, std::size_t> line_of_switch;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!line_of_switch.try_emplace(lines[i].name, i).second) {
      throw_input_error(source.path, lines[i].line, "each switch defined once", quote_input(lines[i].name));
    }
  }
  // Tier = 1 + the highest child tier; leaves have no child switches. Depth-first with a
  // "being visited" mark, so a loop in the file is reported rather than recursed into forever.
  std::vector<int> tier(lines.size(), 0);
  const auto tier_of = [&](const auto& self, std::size_t i, std::size_t depth) -> int {
    if (tier[i] > 0) return tier[i];
    if (tier[i] < 0 || depth > lines.size()) {
      throw_input_error(source.path, lines[i].line, "a tree of switches",
                        "a loop through " + quote_input(lines[i].name));
    }
    tier[i] = -1;
    int highest_child = 0;
    for (const std::string& child : lines[i].child_switches) {
      const auto it = line_of_switch.find(child);
      if (it == line_of_switch.end()) {
        throw_input_error(source.path, lines[i].line, "a switch defined by a SwitchName= line", quote_input(child));
      }
      highest_child = std::max(highest_child, self(self, it->second, depth + 1));
    }
    if (highest_child >= static_cast<int>(SwitchTier::core)) {
      throw_input_error(source.path, lines[i].line, "at most 3 switch levels (leaf, spine, core)",
                        quote_input(lines[i].name) + " at level 4");
    }
    tier[i] = highest_child + 1;
    return tier[i];
  };
  Graph graph;
  // Sized up front: growing the name table of a million hosts step by step costs more than parsing.
  std::size_t host_mentions = 0;
  std::size_t child_mentions = 0;
  for (const SlurmSwitch& line : lines) {
    host_mentions += line.hosts.size();
    child_mentions += line.child_switches.size();
  }
  graph.reserve(lines.size() + host_mentions, host_mentions + child_mentions);
  const LinkSpec nominal = *infiniband(4, "NDR");
  std::vector<VertexId> vertex_of(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    vertex_of[i] = graph.add_vertex(VertexKind::fabric_switch, lines[i].name);
    graph.set_tier(vertex_of[i], static_cast<SwitchTier>(tier_of(tier_of, i, 0)));
  }
  std::map<std::string, std::vector<std::string>> switches_of_host;
  std::size_t uplinks = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    for (const std::string& child : lines[i].child_switches) {
      graph.add_link(vertex_of[line_of_switch.at(child)], vertex_of[i], nominal, true);
      ++uplinks;
    }
    for (const std::string& host : lines[i].hosts) {
      if (line_of_switch.contains(host)) {
        throw_input_error(source.path, lines[i].line, "a node name in Nodes=", "the switch " + quote_input(host));
      }
      std::vector<std::string>& switches = switches_of_host[host];
      switches.push_back(lines[i].name);
      // Slurm's tree plugin places each node under one leaf; a second listing is a slip that,
      // cabled, would join two fabrics into one. The node stays where it was first listed.
      if (switches.size() == 1) graph.add_link(graph.add_vertex(VertexKind::host, host), vertex_of[i], nominal, true);
    }
  }
  state_nodes_under_several_leaves(graph, source.path, switches_of_host);
  graph.add_assumption(fmt::format("{}: Slurm's topology file states no link rates: every link is taken as 4xNDR "
                                   "InfiniBand (nominal; a merged ibnetdiscover dump replaces it)",
                                   source.path));
  if (uplinks > 0) {
    graph.add_assumption(
        fmt::format("{}: Slurm's topology file states neither the count nor the rate of the links "
                    "between switches: each of its {} switch-to-switch relations (Switches=, children:) is taken as "
                    "one 4xNDR link, "
                    "so every oversubscription ratio and bisection bandwidth computed from them is assumed",
                    source.path, uplinks));
  }
  return graph;
}

namespace {

Graph parse_slurm_topology(const SourceText& source) { return build_slurm_tree(source, read_switch_lines(source)); }

int sniff_slurm_topology(std::string_view text) {
  for (const NumberedLine& line : split_lines(text.substr(0, 4096))) {
    const std::string_view content = trim(line.text);
    if (content.empty() || content.front() == '#') continue;
    return starts_with_ignoring_case(content, "SwitchName=") || other_plugin(content) ? 95 : 0;
  }
  return 0;
}

const Registrar<TopologyFormat> registrar{{"slurm", "Slurm topology.conf (tree plugin: SwitchName, Switches, Nodes)",
                                           sniff_slurm_topology, parse_slurm_topology}};

}  // namespace
}  // namespace fb::topo
