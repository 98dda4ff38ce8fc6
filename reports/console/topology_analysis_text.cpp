// The console views of topo show and topo analyze (topology_analysis_text.hpp).

#include "reports/console/topology_analysis_text.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>

namespace fb {
namespace {

std::string ratio_text(const std::optional<double>& ratio) {
  return ratio ? fmt::format("{:.2f}:1", *ratio) : std::string("-");
}

// Tiers whose uplinks the inputs did not state (topology.conf: one nominal link per relation):
// their ratios are the model's assumption, not the fabric's.
std::set<topo::SwitchTier> tiers_with_assumed_uplinks(const topo::Graph& graph) {
  std::set<topo::SwitchTier> tiers;
  for (const topo::Link& link : graph.links()) {
    const topo::Vertex& a = graph.vertex(link.a);
    const topo::Vertex& b = graph.vertex(link.b);
    if (!link.nominal_capacity || a.kind != topo::VertexKind::fabric_switch ||
        b.kind != topo::VertexKind::fabric_switch) {
      continue;
    }
    tiers.insert(a.tier);  // its uplinks
    tiers.insert(b.tier);  // its downlinks
  }
  return tiers;
}

}  // namespace

void print_oversubscription(const topo::Graph& graph, const topo::OversubscriptionReport& report) {
  if (report.tiers.empty()) return;
  const std::set<topo::SwitchTier> assumed = tiers_with_assumed_uplinks(graph);
  fmt::print("\n{:<8} {:>9} {:>14} {:>14} {:>16} {:>14}\n", "tier", "switches", "down GB/s", "up GB/s",
             "oversubscription", "worst switch");
  for (const auto& tier : report.tiers) {
    const auto labelled = [&](const std::optional<double>& ratio) {
      return ratio && assumed.contains(tier.tier) ? ratio_text(ratio) + " assumed" : ratio_text(ratio);
    };
    fmt::print("{:<8} {:>9} {:>14.1f} {:>14.1f} {:>16} {:>14}\n", topo::name_of(tier.tier), tier.switch_count,
               tier.downlink_gbps, tier.uplink_gbps, labelled(tier.oversubscription_ratio),
               labelled(tier.worst_switch_ratio));
  }
  if (!assumed.empty()) {
    fmt::print("# assumed: the inputs state neither the count nor the rate of these tiers' uplinks (see the "
               "assumptions)\n");
  }
}

void print_pattern_analysis(const topo::Graph& graph, double bisection_gbps, const topo::PatternAnalysis& analysis,
                            std::span<const topo::HostInjection> shortfalls, std::size_t max_rows) {
  const std::string_view pattern = topo::name_of(analysis.pattern);
  fmt::print("\n# bisection bandwidth {:.1f} GB/s per direction ({} hosts)\n", bisection_gbps, analysis.host_count);
  // The headline is the completion time: a total near 100% of what is offered can hide flows
  // that crawl through a full uplink while others race.
  fmt::print("# {}: takes {:.2f}x as long as on a non-blocking fabric: slowest flow {:.3f} GB/s against {:.3f} "
             "GB/s, held by {}\n",
             pattern, analysis.completion_time_ratio, analysis.min_flow_rate_gbps,
             analysis.nonblocking_min_flow_rate_gbps, analysis.slowest_flow_limit);
  fmt::print("# {}: offered {:.1f} GB/s in all, max-min fair total {:.1f} GB/s\n", pattern, analysis.offered_gbps,
             analysis.achieved_gbps);
  fmt::print("# {} blocking link direction(s)\n", analysis.blocking.size());
  if (!analysis.blocking.empty()) {
    fmt::print("{:<28} {:<28} {:>10} {:>14} {:>8}\n", "from", "to", "cap GB/s", "expected GB/s", "load");
  }
  for (std::size_t i = 0; i < analysis.blocking.size() && i < max_rows; ++i) {
    const topo::SaturatedLink& finding = analysis.blocking[i];
    fmt::print("{:<28} {:<28} {:>10.1f} {:>14.1f} {:>7.2f}x\n", graph.vertex(finding.from).name,
               graph.vertex(finding.to).name, finding.capacity_gbps, finding.expected_load_gbps, finding.load_ratio);
  }
  if (analysis.blocking.size() > max_rows) {
    fmt::print("... and {} more (--max-rows, or --json for all)\n", analysis.blocking.size() - max_rows);
  }
  for (const topo::HostInjection& injection : shortfalls) {
    fmt::print("# {}{}: its GPUs reach its NICs at {:.1f} GB/s of the {:.1f} its ports carry for collectives ({:.1f} "
               "at line rate): {} fills first, each GPU sending through its nearest NIC; the fabric figures above "
               "are at the ports' line rate, more than these hosts offer\n",
               graph.vertex(injection.host).name,
               injection.hosts > 1 ? fmt::format(" (and {} hosts built alike)", injection.hosts - 1) : std::string(),
               injection.reachable_gbps, injection.port_collective_gbps, injection.port_gbps,
               topo::describe_direction(graph, injection.limit, injection.limit_from_a));
  }
}

void print_topology_summary(const topo::Graph& graph, std::size_t files) {
  std::map<std::string_view, std::size_t> vertices;
  std::map<std::string_view, std::size_t> tiers;
  for (const topo::Vertex& v : graph.vertices()) {
    ++vertices[topo::name_of(v.kind)];
    if (v.kind == topo::VertexKind::fabric_switch) ++tiers[topo::name_of(v.tier)];
  }
  struct LinkSummary {
    std::size_t count = 0;
    std::size_t nominal = 0;
    double capacity_gbps = 0;
  };
  std::map<std::string_view, LinkSummary> links;
  for (const topo::Link& link : graph.links()) {
    LinkSummary& summary = links[link.spec.technology];
    ++summary.count;
    summary.nominal += link.nominal_capacity ? 1 : 0;
    summary.capacity_gbps += link.spec.capacity_gbps;
  }
  fmt::print("# {} vertices, {} links from {} file(s)\n", graph.vertex_count(), graph.link_count(), files);
  for (const auto& [kind, count] : vertices) fmt::print("{:<14} {:>8}\n", kind, count);
  for (const auto& [tier, count] : tiers) fmt::print("{:<14} {:>8}\n", fmt::format("{} switches", tier), count);
  fmt::print("\n{:<28} {:>8} {:>16} {:>8}\n", "link technology", "links", "total GB/s", "nominal");
  for (const auto& [technology, summary] : links) {
    fmt::print("{:<28} {:>8} {:>16.1f} {:>8}\n", technology, summary.count, summary.capacity_gbps, summary.nominal);
  }
  if (graph.undecided_link_count() > 0) {
    std::set<std::string> reasons;
    for (topo::LinkId l = 0; l < graph.link_count(); ++l) {
      if (const std::string* why = graph.undecided(l)) reasons.insert(*why);
    }
    fmt::print("\n# {} link(s) whose rate the inputs leave undecided: modelled at the lower candidate, and every "
               "expectation that rests on them is withheld (n/a)\n",
               graph.undecided_link_count());
    for (const std::string& why : reasons) fmt::print("undecided: {}\n", why);
  }
  print_oversubscription(graph, topo::analyze_oversubscription(graph));
  if (!graph.assumptions().empty()) {
    fmt::print("\n# {} assumption(s): what the inputs did not state\n", graph.assumptions().size());
    for (const std::string& assumption : graph.assumptions()) fmt::print("assumed: {}\n", assumption);
  }
}

void print_partitions(const topo::Graph& graph, const std::vector<std::vector<topo::VertexId>>& partitions,
                      bool linked) {
  if (linked) {
    // A subnet manager does route over such links (OpenSM's min-hop, or up-down from a root it
    // picks); the model's tree analysis cannot say what share they carry, and says that instead.
    fmt::print("\n# the fabric has {} parts with no common upper-tier switch, joined only by links between switches "
               "of one tier (leaf to leaf): a subnet manager routes between them over those links, but the tree "
               "model has no upper tier to share traffic through, so no bisection bandwidth and no fabric-wide "
               "pattern is computed\n",
               partitions.size());
  } else {
    fmt::print("\n# the fabric is disconnected: {} parts that no link joins, so no bisection bandwidth and no "
               "fabric-wide pattern\n",
               partitions.size());
  }
  for (const auto& part : partitions)
    fmt::print("#   {} host(s): {}{}\n", part.size(), graph.vertex(part.front()).name,
               part.size() > 1 ? fmt::format(" ... {}", graph.vertex(part.back()).name) : std::string());
}

}  // namespace fb
