#include "topology/analysis.hpp"

#include "common/errors.hpp"
#include "topology/routing.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

namespace fb::topo {
namespace {

// Relative tolerance for "this link is the weakest of its bundle".
constexpr double capacity_tolerance = 1e-9;

struct PatternFlows {
  std::vector<FlowClass> classes;
  std::size_t flows_per_host = 1;
};

void add_host_flow(FabricHierarchy& fabric, PatternFlows& flows, std::uint32_t src, std::uint32_t dst) {
  const std::optional<std::uint32_t> meeting = fabric.common_group(src, dst);
  if (!meeting) return;  // separate fabrics: nothing to share, nothing to route
  const int level = fabric.groups()[*meeting].level;
  flows.classes.push_back(FlowClass{{fabric.profile(fabric.host_group(src), level, false),
                                     fabric.profile(fabric.host_group(dst), level, true)},
                                    1.0});
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one case per traffic pattern, each a short loop over hosts or groups
PatternFlows build_flows(FabricHierarchy& fabric, TrafficPattern pattern) {
  PatternFlows flows;
  const auto host_count = static_cast<std::uint32_t>(fabric.hosts().size());
  switch (pattern) {
    case TrafficPattern::all_to_all: {
      // One class per ordered pair of sibling groups: the flows between them all meet at the
      // parent group and cross the same resources in the same proportions.
      flows.flows_per_host = host_count - 1;
      for (std::uint32_t g = 0; g < fabric.groups().size(); ++g) {
        const auto& parent = fabric.groups()[g];
        if (parent.level == 0) continue;
        for (const std::uint32_t a : parent.children) {
          for (const std::uint32_t b : parent.children) {
            const double pairs = static_cast<double>(fabric.groups()[a].hosts.size()) *
                                 static_cast<double>(fabric.groups()[b].hosts.size());
            if (a == b || pairs == 0) continue;
            flows.classes.push_back(
                FlowClass{{fabric.profile(a, parent.level, false), fabric.profile(b, parent.level, true)}, pairs});
          }
        }
      }
      break;
    }
    case TrafficPattern::ring:
      for (std::uint32_t i = 0; i < host_count && host_count > 1; ++i) {
        add_host_flow(fabric, flows, i, (i + 1) % host_count);
      }
      break;
    case TrafficPattern::leaf_to_leaf: {
      std::vector<std::uint32_t> leaf_groups;
      for (std::uint32_t g = 0; g < fabric.groups().size(); ++g) {
        if (fabric.groups()[g].level == 1 && !fabric.groups()[g].hosts.empty()) leaf_groups.push_back(g);
      }
      for (std::size_t k = 0; k < leaf_groups.size() && leaf_groups.size() > 1; ++k) {
        const auto& from = fabric.groups()[leaf_groups[k]].hosts;
        const auto& to = fabric.groups()[leaf_groups[(k + 1) % leaf_groups.size()]].hosts;
        for (std::size_t i = 0; i < from.size(); ++i) add_host_flow(fabric, flows, from[i], to[i % to.size()]);
      }
      break;
    }
    case TrafficPattern::bisection: {
      const std::uint32_t half = host_count / 2;
      for (std::uint32_t i = 0; i < half; ++i) {
        add_host_flow(fabric, flows, i, i + half);
        add_host_flow(fabric, flows, i + half, i);
      }
      break;
    }
  }
  return flows;
}

double bottleneck_of(std::span<const double> capacity, std::span<const ResourceShare> shares, double limit) {
  for (const ResourceShare& use : shares) {
    if (use.share > 0) limit = std::min(limit, capacity[use.resource] / use.share);
  }
  return limit;
}

// "leaf0001 uplinks (800.0 GB/s)" or "node07: NIC ports to the fabric (400.0 GB/s)": the resource
// that stopped the slowest class, a full one on its path that no class crosses faster (max-min
// fairness: resources that fill later, once faster classes have grown, do not hold it).
std::string slowest_class_limit(const FabricHierarchy& fabric, const MaxMinAllocation& allocation,
                                std::span<const FlowClass> classes, std::size_t slowest) {
  std::vector<double> fastest_gbps(allocation.saturated.size(), 0.0);
  for (std::size_t c = 0; c < classes.size(); ++c)
    for (const auto& segment : classes[c].segments)
      for (const ResourceShare& use : segment)
        fastest_gbps[use.resource] = std::max(fastest_gbps[use.resource], allocation.rate_gbps[c]);
  const double slowest_gbps = allocation.rate_gbps[slowest];
  for (const auto& segment : classes[slowest].segments)
    for (const ResourceShare& use : segment) {
      if (use.share <= 0 || !allocation.saturated[use.resource] ||
          fastest_gbps[use.resource] > slowest_gbps * (1 + capacity_tolerance))
        continue;
      const std::string owner = fabric.graph().vertex(fabric.resource_owner(use.resource)).name;
      const bool up = fabric.resource_is_up(use.resource);
      const double capacity_gbps = fabric.resource_capacity_gbps()[use.resource];
      if (fabric.resource_is_host_access(use.resource))
        return fmt::format("{}: NIC ports {} the fabric ({:.1f} GB/s)", owner, up ? "to" : "from", capacity_gbps);
      return fmt::format("{} {} ({:.1f} GB/s)", owner, up ? "uplinks" : "downlinks", capacity_gbps);
    }
  return "no shared link fills";
}

}  // namespace

OversubscriptionReport analyze_oversubscription(const Graph& graph) {
  OversubscriptionReport report;
  std::map<SwitchTier, TierOversubscription> tiers;
  for (VertexId v = 0; v < graph.vertex_count(); ++v) {
    const Vertex& vertex = graph.vertex(v);
    if (vertex.kind != VertexKind::fabric_switch) continue;
    SwitchOversubscription entry{v, 0, 0, std::nullopt};
    for (const LinkId l : graph.links_of(v)) {
      const Link& link = graph.link(l);
      const Vertex& other = graph.vertex(link.other_end(v));
      const bool upwards = other.kind == VertexKind::fabric_switch && other.tier > vertex.tier;
      const bool downwards = other.kind != VertexKind::fabric_switch || other.tier < vertex.tier;
      if (upwards) entry.uplink_gbps += link.spec.capacity_gbps;
      if (downwards) entry.downlink_gbps += link.spec.capacity_gbps;
    }
    if (entry.uplink_gbps > 0) entry.oversubscription_ratio = entry.downlink_gbps / entry.uplink_gbps;
    TierOversubscription& tier = tiers[vertex.tier];
    tier.tier = vertex.tier;
    ++tier.switch_count;
    tier.downlink_gbps += entry.downlink_gbps;
    tier.uplink_gbps += entry.uplink_gbps;
    if (entry.oversubscription_ratio) {
      tier.worst_switch_ratio = std::max(tier.worst_switch_ratio.value_or(0.0), *entry.oversubscription_ratio);
    }
    report.switches.push_back(entry);
  }
  for (auto& [tier_name, tier] : tiers) {
    if (tier.uplink_gbps > 0) tier.oversubscription_ratio = tier.downlink_gbps / tier.uplink_gbps;
    report.tiers.push_back(tier);
  }
  return report;
}

std::string_view name_of(TrafficPattern pattern) {
  switch (pattern) {
    case TrafficPattern::all_to_all: return "all_to_all";
    case TrafficPattern::ring: return "ring";
    case TrafficPattern::leaf_to_leaf: return "leaf_to_leaf";
    case TrafficPattern::bisection: return "bisection";
  }
  return "unknown";
}

std::optional<TrafficPattern> traffic_pattern_from_string(std::string_view name) {
  for (const TrafficPattern pattern :
       {TrafficPattern::all_to_all, TrafficPattern::ring, TrafficPattern::leaf_to_leaf, TrafficPattern::bisection}) {
    if (name == name_of(pattern)) return pattern;
  }
  return std::nullopt;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): solves a pattern's flows and summarizes the bottleneck per tier in the same pass
PatternAnalysis analyze_pattern(FabricHierarchy& fabric, TrafficPattern pattern) {
  PatternAnalysis analysis;
  analysis.pattern = pattern;
  analysis.host_count = fabric.hosts().size();
  const PatternFlows flows = build_flows(fabric, pattern);
  analysis.flow_classes = flows.classes.size();
  if (flows.classes.empty()) return analysis;

  const std::span<const double> capacity = fabric.resource_capacity_gbps();
  double weakest_host_gbps = std::numeric_limits<double>::infinity();
  for (std::uint32_t h = 0; h < fabric.hosts().size(); ++h)
    weakest_host_gbps = std::min(weakest_host_gbps, capacity[h]);
  const double offered_per_flow = weakest_host_gbps / static_cast<double>(flows.flows_per_host);
  const std::vector<double> offered_rates(flows.classes.size(), offered_per_flow);
  const std::vector<double> offered = offered_load(capacity.size(), flows.classes, offered_rates);
  const MaxMinAllocation allocation = solve_max_min(capacity, flows.classes);

  // Offered: each sending host at its own access capacity. A feasible allocation never sends more
  // than that from any host, so the achieved share is at most 100% however unequal the hosts.
  for (std::uint32_t h = 0; h < fabric.hosts().size(); ++h) {
    if (offered[h] > 0) analysis.offered_gbps += capacity[h];
  }
  analysis.min_flow_rate_gbps = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < flows.classes.size(); ++c) {
    analysis.achieved_gbps += allocation.rate_gbps[c] * flows.classes[c].flow_count;
    analysis.min_flow_rate_gbps = std::min(analysis.min_flow_rate_gbps, allocation.rate_gbps[c]);
  }
  const Graph& graph = fabric.graph();
  const auto slowest = static_cast<std::size_t>(
      std::min_element(allocation.rate_gbps.begin(), allocation.rate_gbps.end()) - allocation.rate_gbps.begin());
  analysis.slowest_flow_limit = slowest_class_limit(fabric, allocation, flows.classes, slowest);

  // Fabric links as wide as all hosts' ports together: none can fill (an infinite capacity would
  // read as full to the solver's relative tolerance).
  double all_ports_gbps = 0;
  for (std::uint32_t r = 0; r < capacity.size(); ++r)
    if (fabric.resource_is_host_access(r)) all_ports_gbps += capacity[r];
  std::vector<double> host_ports_only(capacity.begin(), capacity.end());
  for (std::uint32_t r = 0; r < capacity.size(); ++r)
    if (!fabric.resource_is_host_access(r)) host_ports_only[r] = 2 * all_ports_gbps;
  const MaxMinAllocation nonblocking = solve_max_min(host_ports_only, flows.classes);
  analysis.nonblocking_min_flow_rate_gbps =
      *std::min_element(nonblocking.rate_gbps.begin(), nonblocking.rate_gbps.end());
  if (analysis.min_flow_rate_gbps > 0)
    analysis.completion_time_ratio =
        std::max(1.0, analysis.nonblocking_min_flow_rate_gbps / analysis.min_flow_rate_gbps);

  for (std::uint32_t r = 0; r < capacity.size(); ++r) {
    if (!allocation.saturated[r] || fabric.resource_is_host_access(r)) continue;
    const std::span<const LinkId> links = fabric.resource_links(r);
    double weakest = std::numeric_limits<double>::infinity();
    for (const LinkId l : links) weakest = std::min(weakest, graph.link(l).spec.capacity_gbps);
    for (const LinkId l : links) {
      const Link& link = graph.link(l);
      if (link.spec.capacity_gbps > weakest * (1 + capacity_tolerance)) continue;
      const VertexId owner = fabric.resource_owner(r);
      const VertexId upper = link.other_end(owner);
      const bool up = fabric.resource_is_up(r);
      const double expected = offered[r] / static_cast<double>(links.size());
      // Filled exactly, a link carries all it is offered: it limits nothing, so it is not blocking.
      if (expected <= link.spec.capacity_gbps * (1 + capacity_tolerance)) continue;
      analysis.blocking.push_back({l, up ? owner : upper, up ? upper : owner, link.spec.capacity_gbps, expected,
                                   expected / link.spec.capacity_gbps});
    }
  }
  std::stable_sort(analysis.blocking.begin(), analysis.blocking.end(),
                   [](const SaturatedLink& a, const SaturatedLink& b) { return a.load_ratio > b.load_ratio; });
  return analysis;
}

std::vector<std::vector<VertexId>> fabric_partitions(const FabricHierarchy& fabric) {
  std::vector<std::vector<VertexId>> partitions;
  for (const FabricHierarchy::Group& group : fabric.groups()) {
    if (group.parent || group.hosts.empty()) continue;
    std::vector<VertexId>& hosts = partitions.emplace_back();
    for (const std::uint32_t h : group.hosts) hosts.push_back(fabric.hosts()[h]);
  }
  return partitions;
}

bool parts_are_linked(const Graph& graph, const std::vector<std::vector<VertexId>>& parts) {
  std::vector<VertexId> component(graph.vertex_count());
  std::iota(component.begin(), component.end(), VertexId{0});
  const auto root = [&](VertexId v) {
    while (component[v] != v) v = component[v] = component[component[v]];
    return v;
  };
  for (const Link& link : graph.links()) component[root(link.a)] = root(link.b);
  // A host reaches the fabric through its devices, which belong to it without a link.
  for (VertexId v = 0; v < graph.vertex_count(); ++v) {
    if (graph.vertex(v).host != no_vertex) component[root(v)] = root(graph.vertex(v).host);
  }
  for (const auto& part : parts) {
    if (root(part.front()) != root(parts.front().front())) return false;
  }
  return true;
}

double bisection_bandwidth_gbps(FabricHierarchy& fabric) {
  // The pattern is symmetric: half of its total crosses the cut in each direction.
  return analyze_pattern(fabric, TrafficPattern::bisection).achieved_gbps / 2;
}

std::vector<PairBandwidth> gpu_pair_bandwidths(const Graph& graph, std::size_t max_pairs) {
  std::vector<VertexId> gpus;
  for (VertexId v = 0; v < graph.vertex_count(); ++v) {
    if (graph.vertex(v).kind == VertexKind::gpu) gpus.push_back(v);
  }
  const std::size_t pair_count = gpus.size() * (gpus.size() - std::min<std::size_t>(gpus.size(), 1)) / 2;
  if (pair_count > max_pairs) {
    throw InputError(fmt::format("{} GPU pairs is more than the limit of {}", pair_count, max_pairs));
  }
  std::vector<PairBandwidth> pairs;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (std::size_t j = i + 1; j < gpus.size(); ++j) {
      const std::optional<Route> route = find_route(graph, gpus[i], gpus[j]);
      pairs.push_back({gpus[i], gpus[j], route ? route->bottleneck_gbps : 0.0, route ? route->latency_us : 0.0});
    }
  }
  return pairs;
}

std::vector<PairBandwidth> host_pair_bandwidths(FabricHierarchy& fabric, std::size_t max_pairs) {
  const std::size_t host_count = fabric.hosts().size();
  const std::size_t pair_count = host_count * (host_count - std::min<std::size_t>(host_count, 1)) / 2;
  if (pair_count > max_pairs) {
    throw InputError(fmt::format("{} host pairs is more than the limit of {}", pair_count, max_pairs));
  }
  const std::span<const double> capacity = fabric.resource_capacity_gbps();
  std::vector<PairBandwidth> pairs;
  for (std::uint32_t i = 0; i < host_count; ++i) {
    for (std::uint32_t j = i + 1; j < host_count; ++j) {
      PairBandwidth pair{fabric.hosts()[i], fabric.hosts()[j], 0.0, 0.0};
      if (const std::optional<std::uint32_t> meeting = fabric.common_group(i, j)) {
        const int level = fabric.groups()[*meeting].level;
        pair.bottleneck_gbps = bottleneck_of(capacity, fabric.profile(fabric.host_group(j), level, true),
                                             bottleneck_of(capacity, fabric.profile(fabric.host_group(i), level, false),
                                                           std::numeric_limits<double>::infinity()));
        pair.latency_us = fabric.latency_to_level_us(fabric.host_group(i), level) +
                          fabric.latency_to_level_us(fabric.host_group(j), level);
      }
      pairs.push_back(pair);
    }
  }
  return pairs;
}

nlohmann::json to_json(const Graph& graph, const OversubscriptionReport& report) {
  const auto ratio = [](const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
  };
  nlohmann::json tiers = nlohmann::json::array();
  for (const TierOversubscription& tier : report.tiers) {
    tiers.push_back({{"tier", name_of(tier.tier)},
                     {"switches", tier.switch_count},
                     {"downlink_gbps", tier.downlink_gbps},
                     {"uplink_gbps", tier.uplink_gbps},
                     {"oversubscription_ratio", ratio(tier.oversubscription_ratio)},
                     {"worst_switch_ratio", ratio(tier.worst_switch_ratio)}});
  }
  nlohmann::json switches = nlohmann::json::array();
  for (const SwitchOversubscription& entry : report.switches) {
    switches.push_back({{"switch", graph.vertex(entry.switch_vertex).name},
                        {"tier", name_of(graph.vertex(entry.switch_vertex).tier)},
                        {"downlink_gbps", entry.downlink_gbps},
                        {"uplink_gbps", entry.uplink_gbps},
                        {"oversubscription_ratio", ratio(entry.oversubscription_ratio)}});
  }
  return {{"tiers", tiers}, {"switches", switches}};
}

nlohmann::json to_json(const Graph& graph, const PatternAnalysis& analysis) {
  nlohmann::json findings = nlohmann::json::array();
  for (const SaturatedLink& finding : analysis.blocking) {
    findings.push_back(
        {{"kind", "blocking"},
         {"link", fmt::format("{} -> {}", graph.vertex(finding.from).name, graph.vertex(finding.to).name)},
         {"from", graph.vertex(finding.from).name},
         {"to", graph.vertex(finding.to).name},
         {"link_type", name_of(graph.link(finding.link).spec.type)},
         {"capacity_gbps", finding.capacity_gbps},
         {"expected_load_gbps", finding.expected_load_gbps},
         {"load_ratio", finding.load_ratio}});
  }
  return {{"pattern", name_of(analysis.pattern)},
          {"hosts", analysis.host_count},
          {"flow_classes", analysis.flow_classes},
          {"offered_gbps", analysis.offered_gbps},
          {"achieved_gbps", analysis.achieved_gbps},
          {"min_flow_rate_gbps", analysis.min_flow_rate_gbps},
          {"nonblocking_min_flow_rate_gbps", analysis.nonblocking_min_flow_rate_gbps},
          {"completion_time_ratio", analysis.completion_time_ratio},
          {"slowest_flow_limit", analysis.slowest_flow_limit},
          {"findings", findings}};
}

}  // namespace fb::topo
