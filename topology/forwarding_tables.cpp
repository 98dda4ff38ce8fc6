#include "topology/forwarding_tables.hpp"

#include "common/errors.hpp"
#include "common/text_file.hpp"

#include <fmt/format.h>

#include <limits>

namespace fb::topo {

ForwardingTables parse_forwarding_tables(const SourceText& source, std::string_view format_name) {
  const ForwardingTableFormatRegistry& registry = ForwardingTableFormatRegistry::instance();
  if (format_name != "auto") return registry.at(format_name).parse(source);
  const ForwardingTableFormat* best = nullptr;
  int best_score = 0;
  for (const ForwardingTableFormat& format : registry.entries()) {
    const int score = format.sniff(source.text);
    if (score > best_score) {
      best = &format;
      best_score = score;
    }
  }
  if (best == nullptr)
    throw InputError(fmt::format("{}:1: expected a forwarding table dump ({}), got none that matches", source.path,
                                 registry.names()));
  return best->parse(source);
}

ForwardingTables load_forwarding_tables(const std::string& path, std::string_view format_name) {
  return parse_forwarding_tables({path, read_text_file(path)}, format_name);
}

TableRouter::TableRouter(const Graph& graph, const ForwardingTables& tables) : graph_(graph) {
  for (LinkId l = 0; l < graph.link_count(); ++l) {
    const std::optional<CablePorts> ports = graph.cable_ports(l);
    if (!ports) continue;
    link_at_port_[port_key(graph.link(l).a, ports->a)] = l;
    link_at_port_[port_key(graph.link(l).b, ports->b)] = l;
  }
  if (link_at_port_.empty())
    throw InputError("forwarding tables need the fabric's ibnetdiscover output as a topology: no other input states "
                     "which port each cable plugs into");
  for (const ForwardingTable& table : tables.switches) {
    const VertexId v = graph.find_guid(table.switch_guid);
    if (v == no_vertex || graph.vertex(v).kind != VertexKind::fabric_switch)
      throw InputError(fmt::format("the forwarding tables name switch {:#018x} ({}), which the topology does not have: "
                                   "are both from the same fabric?",
                                   table.switch_guid, table.switch_description));
    table_of_switch_[v] = &table;
  }
  for (const auto& [guid, lid] : tables.lid_by_port_guid) {
    const VertexId v = graph.find_guid(guid);
    if (v != no_vertex) lid_of_vertex_[v] = lid;
  }
}

std::optional<Route> TableRouter::walk(VertexId src_nic, VertexId dst_nic, std::string* why) const {
  const auto fail = [&](std::string reason) -> std::optional<Route> {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  };
  const auto lid = lid_of_vertex_.find(dst_nic);
  if (lid == lid_of_vertex_.end())
    return fail(fmt::format("the forwarding tables have no LID for {}", graph_.vertex(dst_nic).name));
  Route route;
  route.bottleneck_gbps = std::numeric_limits<double>::infinity();
  const auto take = [&](LinkId l, VertexId from) {
    const Link& link = graph_.link(l);
    route.uses.push_back({l, link.a == from, 1.0});
    route.latency_us += link.spec.latency_us;
    route.bottleneck_gbps = std::min(route.bottleneck_gbps, link.spec.capacity_gbps);
    ++route.hop_count;
    return link.other_end(from);
  };
  // The adapter's cable to its switch: its first link into the fabric.
  VertexId at = no_vertex;
  for (const LinkId l : graph_.links_of(src_nic)) {
    if (graph_.vertex(graph_.link(l).other_end(src_nic)).kind == VertexKind::fabric_switch && graph_.cable_ports(l)) {
      at = take(l, src_nic);
      break;
    }
  }
  if (at == no_vertex) return fail(fmt::format("{} has no cable to a switch", graph_.vertex(src_nic).name));
  // A path longer than the fabric has switches loops.
  for (std::size_t hops = 0; at != dst_nic; ++hops) {
    const auto table = table_of_switch_.find(at);
    if (table == table_of_switch_.end() || hops > table_of_switch_.size())
      return fail(table == table_of_switch_.end()
                      ? fmt::format("the forwarding tables have no table for switch {}", graph_.vertex(at).name)
                      : fmt::format("the forwarding tables loop on the way to {}", graph_.vertex(dst_nic).name));
    const auto port = table->second->out_port_by_lid.find(lid->second);
    if (port == table->second->out_port_by_lid.end() || port->second == 0)
      return fail(fmt::format("switch {} has no entry for LID {} ({})", graph_.vertex(at).name, lid->second,
                              graph_.vertex(dst_nic).name));
    const auto link = link_at_port_.find(port_key(at, port->second));
    if (link == link_at_port_.end())
      return fail(fmt::format("switch {} sends LID {} out of port {}, which has no cable", graph_.vertex(at).name,
                              lid->second, port->second));
    at = take(link->second, at);
  }
  return route;
}

std::optional<Route> TableRouter::route(VertexId src_nic, VertexId dst_nic) const {
  if (src_nic == dst_nic) return std::nullopt;
  return walk(src_nic, dst_nic, nullptr);
}

std::string TableRouter::why_unrouted(VertexId src_nic, VertexId dst_nic) const {
  std::string why;
  if (src_nic != dst_nic) walk(src_nic, dst_nic, &why);
  return why;
}

std::optional<Route> pair_route(const Graph& graph, const TableRouter* tables, VertexId src_nic, VertexId dst_nic) {
  if (tables != nullptr)
    if (std::optional<Route> route = tables->route(src_nic, dst_nic)) return route;
  return find_route(graph, src_nic, dst_nic);
}

}  // namespace fb::topo
