#include "reports/html/fabric_drawing.hpp"

#include "topology/dot_export.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

namespace fb {
namespace {

using topo::Graph;
using topo::LinkId;
using topo::SwitchTier;
using topo::VertexId;
using topo::VertexKind;

bool is_switch(const Graph& graph, VertexId v) {
  return graph.vertex(v).kind == VertexKind::fabric_switch && graph.vertex(v).host == topo::no_vertex;
}

std::string capacity_label(const topo::Link& link, std::size_t count) {
  return fmt::format("{}{:.4g} GB/s", count > 1 ? fmt::format("{} x ", count) : "", link.spec.capacity_gbps);
}

// A host's leaf: the fabric switch one of its devices is cabled to.
std::optional<VertexId> leaf_of(const Graph& graph, VertexId host) {
  for (const VertexId device : graph.devices_of(host))
    for (const LinkId l : graph.links_of(device))
      if (const VertexId other = graph.link(l).other_end(device); is_switch(graph, other)) return other;
  return std::nullopt;
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one DOT document: the style of each vertex and link kind, flagged or not, in the order Graphviz reads them
std::string fabric_overview_dot(const Graph& graph, std::span<const LinkId> flagged_links,
                                std::span<const std::string> finding_subjects) {
  const std::unordered_set<LinkId> flagged(flagged_links.begin(), flagged_links.end());
  const auto named = [&](const std::string& name) {
    return std::any_of(finding_subjects.begin(), finding_subjects.end(),
                       [&](const std::string& subject) { return subject.find(name) != std::string::npos; });
  };
  std::set<VertexId> flagged_hosts, flagged_switches;
  for (const LinkId l : flagged_links)
    for (const VertexId end : {graph.link(l).a, graph.link(l).b}) {
      if (graph.vertex(end).host != topo::no_vertex) flagged_hosts.insert(graph.vertex(end).host);
      if (is_switch(graph, end)) flagged_switches.insert(end);
    }

  // Hosts by leaf; hosts without one (a single node, no fabric) hang under no switch.
  std::map<VertexId, std::vector<VertexId>> hosts_by_leaf;
  std::vector<VertexId> hosts_without_leaf;
  for (VertexId v = 0; v < graph.vertex_count(); ++v) {
    if (graph.vertex(v).kind != VertexKind::host) continue;
    if (const std::optional<VertexId> leaf = leaf_of(graph, v))
      hosts_by_leaf[*leaf].push_back(v);
    else
      hosts_without_leaf.push_back(v);
  }
  const auto host_stands_out = [&](VertexId host) {
    return flagged_hosts.contains(host) || named(graph.vertex(host).name);
  };
  // Which leaves are drawn: all when few, else those a finding touches.
  std::set<VertexId> drawn_leaves;
  for (const auto& [leaf, hosts] : hosts_by_leaf)
    if (hosts_by_leaf.size() <= drawn_leaves_max || flagged_switches.contains(leaf) || named(graph.vertex(leaf).name) ||
        std::any_of(hosts.begin(), hosts.end(), host_stands_out))
      drawn_leaves.insert(leaf);

  // A leaf is left out when collapsed into "more leaves"; other switches are always drawn.
  const auto switch_drawn = [&](VertexId v) {
    return graph.vertex(v).tier != SwitchTier::leaf || drawn_leaves.contains(v) || !hosts_by_leaf.contains(v);
  };
  std::string dot = "graph fabric {\n  graph [rankdir=TB, nodesep=0.3, ranksep=0.8, fontname=\"Helvetica\"];\n"
                    "  node [fontname=\"Helvetica\", fontsize=14, shape=box, style=\"rounded,filled\", "
                    "fillcolor=\"#f4f4f4\"];\n  edge [fontname=\"Helvetica\", fontsize=12, color=\"#777777\"];\n";
  const auto node = [&](const std::string& id, const std::string& label, bool alarm) {
    dot += fmt::format("  {} [label={}{}];\n", topo::dot_quoted(id), topo::dot_quoted(label),
                       alarm ? ", color=\"#c00000\", fillcolor=\"#f8d7d7\", penwidth=2" : "");
  };
  // Switches above, one row per tier, the highest first. A tier of more than a few switches above
  // the leaves is one box with its count, but for the switches a finding touches.
  std::map<SwitchTier, std::vector<VertexId>, std::greater<>> switches_by_tier;
  for (VertexId v = 0; v < graph.vertex_count(); ++v)
    if (is_switch(graph, v) && switch_drawn(v)) switches_by_tier[graph.vertex(v).tier].push_back(v);
  const auto stands_out = [&](VertexId v) { return flagged_switches.contains(v) || named(graph.vertex(v).name); };
  std::map<VertexId, std::string> drawn_id;  // switch -> the node that stands for it
  for (const auto& [tier, switches] : switches_by_tier) {
    const bool collapse = tier != SwitchTier::leaf && switches.size() > drawn_upper_switches_max;
    const std::string group = fmt::format("{} switches", topo::name_of(tier));
    std::size_t grouped = 0;
    dot += "  { rank=same;\n";
    for (const VertexId v : switches) {
      if (collapse && !stands_out(v)) {
        drawn_id[v] = group;
        ++grouped;
        continue;
      }
      drawn_id[v] = graph.vertex(v).name;
      node(graph.vertex(v).name, graph.vertex(v).name, stands_out(v));
    }
    if (grouped > 0) node(group, fmt::format("{} {} switches", grouped, topo::name_of(tier)), false);
    dot += "  }\n";
  }
  const std::size_t hidden_leaves = hosts_by_leaf.size() - drawn_leaves.size();
  if (hidden_leaves > 0) {
    std::size_t hidden_hosts = 0;
    for (const auto& [leaf, hosts] : hosts_by_leaf)
      if (!drawn_leaves.contains(leaf)) hidden_hosts += hosts.size();
    node("other leaves", fmt::format("{} more leaves\n{} hosts, no finding", hidden_leaves, hidden_hosts), false);
  }
  const auto id_of = [&](VertexId v) {
    const auto found = drawn_id.find(v);
    return found != drawn_id.end() ? found->second : std::string("other leaves");
  };

  // Switch-to-switch links between the nodes drawn, parallel ones as one edge.
  struct Trunk {
    std::size_t links = 0;
    double capacity_gbps = 0;
    bool red = false;
  };
  std::map<std::pair<std::string, std::string>, Trunk> trunks;
  for (LinkId l = 0; l < graph.link_count(); ++l) {
    const topo::Link& link = graph.link(l);
    if (!is_switch(graph, link.a) || !is_switch(graph, link.b)) continue;
    // The upper switch first, so the drawing goes down from spines to leaves.
    const bool a_upper = graph.vertex(link.a).tier >= graph.vertex(link.b).tier;
    const std::string upper = id_of(a_upper ? link.a : link.b), lower = id_of(a_upper ? link.b : link.a);
    if (upper == lower) continue;
    Trunk& trunk = trunks[{upper, lower}];
    ++trunk.links;
    trunk.capacity_gbps = link.spec.capacity_gbps;
    trunk.red = trunk.red || flagged.contains(l);
  }
  for (const auto& [ends, trunk] : trunks)
    dot += fmt::format("  {} -- {} [label={}{}];\n", topo::dot_quoted(ends.first), topo::dot_quoted(ends.second),
                       topo::dot_quoted(fmt::format("{}{:.4g} GB/s",
                                                    trunk.links > 1 ? fmt::format("{} x ", trunk.links) : "",
                                                    trunk.capacity_gbps)),
                       trunk.red ? ", color=\"#c00000\", penwidth=3" : "");

  // Under each drawn leaf: its hosts as one box, and every host a finding names on its own.
  for (const VertexId leaf : drawn_leaves) {
    const std::vector<VertexId>& hosts = hosts_by_leaf[leaf];
    std::size_t ordinary = 0;
    std::optional<LinkId> host_link;
    std::size_t host_cables = 0;
    for (const VertexId host : hosts) {
      std::optional<LinkId> cable;
      std::size_t cables = 0;
      bool red = false;
      for (const VertexId device : graph.devices_of(host))
        for (const LinkId l : graph.links_of(device))
          if (graph.link(l).other_end(device) == leaf) {
            cable = cable ? cable : l;
            ++cables;
            red = red || flagged.contains(l);
          }
      if (!host_link) {
        host_link = cable;
        host_cables = cables;
      }
      if (!host_stands_out(host)) {
        ++ordinary;
        continue;
      }
      node(graph.vertex(host).name, graph.vertex(host).name, true);
      dot += fmt::format("  {} -- {} [label={}{}];\n", topo::dot_quoted(graph.vertex(leaf).name),
                         topo::dot_quoted(graph.vertex(host).name),
                         topo::dot_quoted(cable ? capacity_label(graph.link(*cable), cables) : ""),
                         red ? ", color=\"#c00000\", penwidth=3" : "");
    }
    if (ordinary == 0) continue;
    const std::string group = graph.vertex(leaf).name + " hosts";
    node(group, fmt::format("{} host{}", ordinary, ordinary == 1 ? "" : "s"), false);
    dot +=
        fmt::format("  {} -- {} [label={}];\n", topo::dot_quoted(graph.vertex(leaf).name), topo::dot_quoted(group),
                    topo::dot_quoted(host_link ? "each " + capacity_label(graph.link(*host_link), host_cables) : ""));
  }
  // Hosts outside any fabric (one node's topo -m or NCCL XML): the host with its device counts.
  for (const VertexId host : hosts_without_leaf) {
    std::map<VertexKind, std::size_t> counts;
    for (const VertexId device : graph.devices_of(host)) ++counts[graph.vertex(device).kind];
    std::string label = graph.vertex(host).name;
    for (const auto& [kind, count] : counts) label += fmt::format("\n{} {}", count, topo::name_of(kind));
    node(graph.vertex(host).name, label, host_stands_out(host));
  }
  return dot + "}\n";
}

}  // namespace fb
