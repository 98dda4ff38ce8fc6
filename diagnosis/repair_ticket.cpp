#include "diagnosis/repair_ticket.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fb::diagnosis {

using topo::Graph;
using topo::LinkId;
using topo::VertexId;
using topo::no_vertex;
using topo::CablePorts;
namespace {

// "h003/mlx5_0" -> "h003 mlx5_0": how the host and its device are written on a label.
std::string device_label(const Graph& graph, VertexId v) {
  std::string name = graph.vertex(v).name;
  const VertexId host = graph.vertex(v).host;
  if (host != no_vertex && host != v && name.starts_with(graph.vertex(host).name + "/"))
    name[graph.vertex(host).name.size()] = ' ';
  return name;
}

// The host at an end of the link, if any: a host's cable to its switch.
std::string host_of_link(const Graph& graph, LinkId link) {
  for (const VertexId end : {graph.link(link).a, graph.link(link).b})
    if (const VertexId host = graph.vertex(end).host; host != no_vertex) return graph.vertex(host).name;
  return "";
}

std::string link_ticket_action(const Graph& graph, const Finding& finding, const std::string& location) {
  const LinkId link = *finding.link;
  if (finding.kind == "blocking_link")
    return fmt::format("nothing to replace: {} carries less than the pairs crossing it offer (a tapered or "
                       "oversubscribed stage); add uplinks there, or place jobs so that less of their traffic crosses "
                       "it",
                       location);
  if (!finding.parallel_links.empty()) {
    constexpr std::size_t max_named = 3;
    std::string others;
    for (std::size_t i = 0; i < std::min(max_named, finding.parallel_links.size()); ++i)
      others += fmt::format("; {}", cable_location(graph, finding.parallel_links[i]));
    if (finding.parallel_links.size() > max_named)
      others += fmt::format("; and {} more", finding.parallel_links.size() - max_named);
    // The count is the named cable and its alternatives, as the subject's "one of N other links".
    return fmt::format("one of {} cables is degraded (the named one or one of its {} others): {}{}; measure the "
                       "confirm round (diagnose --routes ... --plan-confirm) to name it before pulling any",
                       finding.parallel_links.size() + 1, finding.parallel_links.size(), location, others);
  }
  const std::string verb =
      finding.kind == "failed_link" ? "check the link lights, then reseat or replace" : "reseat or replace";
  return fmt::format("{} the cable between {} and {}; if it stays slow, swap the transceivers, then try another "
                     "port at either end",
                     verb, cable_end(graph, link, graph.link(link).a), cable_end(graph, link, graph.link(link).b));
}

}  // namespace

std::string cable_end(const Graph& graph, LinkId link, VertexId end) {
  const std::optional<CablePorts> ports = graph.cable_ports(link);
  const std::string label = device_label(graph, end);
  if (!ports) return fmt::format("{} (port not stated)", label);
  return fmt::format("{} port {}", label, end == graph.link(link).a ? ports->a : ports->b);
}

std::string cable_location(const Graph& graph, LinkId link) {
  return fmt::format("{} <-> {}", cable_end(graph, link, graph.link(link).a),
                     cable_end(graph, link, graph.link(link).b));
}

RepairTicket repair_ticket(const Graph& graph, const Finding& finding) {
  RepairTicket ticket;
  const std::string rerun = "fabricbench run pairwise --pairs CONFIRM_PAIRS, then fabricbench diagnose on both runs";
  if (finding.link) {
    ticket.location = cable_location(graph, *finding.link);
    ticket.action = link_ticket_action(graph, finding, ticket.location);
    const std::string host = host_of_link(graph, *finding.link);
    ticket.confirm =
        host.empty()
            ? fmt::format("fabricbench diagnose --plan-confirm CONFIRM_PAIRS (with --routes), then {}: no finding on "
                          "this cable",
                          rerun)
            : fmt::format("fabricbench diagnose --plan-confirm CONFIRM_PAIRS, then {}: {} at its peers' rate", rerun,
                          host);
    return ticket;
  }
  if (!finding.host.empty()) {
    ticket.location = finding.host;
    ticket.action = fmt::format("drain {} and check its NIC, PCIe link and CPU frequency (fabricbench doctor on it); "
                                "its cable measured clean, or another finding would name it",
                                finding.host);
    ticket.confirm =
        fmt::format("fabricbench doctor on {}, then {}: {} at its peers' rate", finding.host, rerun, finding.host);
    return ticket;
  }
  ticket.location = finding.subject;
  ticket.action = "no single part: see the evidence";
  ticket.confirm = rerun;
  return ticket;
}

}  // namespace fb::diagnosis
