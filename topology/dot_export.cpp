#include "topology/dot_export.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <map>
#include <unordered_set>

namespace fb::topo {
std::string dot_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out + "\"";
}

namespace {

std::string_view shape_of(VertexKind kind) {
  switch (kind) {
    case VertexKind::gpu: return "box3d";
    case VertexKind::nic: return "cds";
    case VertexKind::cpu: return "component";
    case VertexKind::nvswitch:
    case VertexKind::pcie_switch: return "hexagon";
    case VertexKind::fabric_switch: return "doubleoctagon";
    case VertexKind::host: return "folder";
  }
  return "ellipse";
}

void write_vertex(std::ostream& out, const Graph& graph, VertexId v, std::string_view indent) {
  const Vertex& vertex = graph.vertex(v);
  fmt::print(out, "{}{} [shape={}];\n", indent, dot_quoted(vertex.name), shape_of(vertex.kind));
}

}  // namespace

void write_dot(std::ostream& out, const Graph& graph, std::span<const LinkId> flagged_links) {
  const std::unordered_set<LinkId> flagged(flagged_links.begin(), flagged_links.end());
  out << "graph fabric {\n  graph [rankdir=BT, fontname=\"Helvetica\"];\n"
         "  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=8];\n";
  std::map<SwitchTier, std::vector<VertexId>> switches_by_tier;
  for (VertexId v = 0; v < graph.vertex_count(); ++v) {
    const Vertex& vertex = graph.vertex(v);
    if (vertex.kind == VertexKind::host) {
      fmt::print(out, "  subgraph {} {{\n    label={};\n", dot_quoted("cluster_" + vertex.name),
                 dot_quoted(vertex.name));
      if (graph.devices_of(v).empty()) write_vertex(out, graph, v, "    ");
      for (const VertexId device : graph.devices_of(v)) write_vertex(out, graph, device, "    ");
      out << "  }\n";
    } else if (vertex.host == no_vertex) {
      switches_by_tier[vertex.tier].push_back(v);
    }
  }
  for (const auto& [tier, switches] : switches_by_tier) {
    out << "  { rank=same;\n";
    for (const VertexId v : switches) write_vertex(out, graph, v, "    ");
    out << "  }\n";
  }
  for (LinkId l = 0; l < graph.link_count(); ++l) {
    const Link& link = graph.link(l);
    const std::string label = fmt::format("{} {:.4g} GB/s{}", name_of(link.spec.type), link.spec.capacity_gbps,
                                          link.spec.lane_count > 1 ? fmt::format(" x{}", link.spec.lane_count) : "");
    fmt::print(out, "  {} -- {} [label={}{}];\n", dot_quoted(graph.vertex(link.a).name),
               dot_quoted(graph.vertex(link.b).name), dot_quoted(label),
               flagged.contains(l) ? ", color=red, penwidth=3" : "");
  }
  out << "}\n";
}

}  // namespace fb::topo
