#include "topology/fabric_hierarchy.hpp"

#include "common/errors.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace fb::topo {
namespace {

constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
constexpr int max_tier = static_cast<int>(SwitchTier::core);

bool is_fabric_switch(const Vertex& v) { return v.kind == VertexKind::fabric_switch; }

std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): builds the hierarchy's levels in order (tiers checked, host bundles, uplink bundles, groups per tier), each from the one before, in linear passes over graphs of millions
FabricHierarchy::FabricHierarchy(const Graph& graph) : graph_(graph) {
  const std::size_t vertex_count = graph.vertex_count();
  bundle_of_vertex_.assign(vertex_count, none);
  group_of_switch_.assign(vertex_count, none);
  scratch_share_.assign(vertex_count, 0.0);

  // The switches, in vertex order: one pass over millions of vertices instead of one per use.
  std::vector<VertexId>& all_switches = switches_;
  for (VertexId v = 0; v < vertex_count; ++v) {
    const Vertex& vertex = graph.vertex(v);
    if (!is_fabric_switch(vertex)) continue;
    if (vertex.tier == SwitchTier::none) {
      throw InputError("fabric switch '" + vertex.name + "' has no tier (leaf, spine or core)");
    }
    all_switches.push_back(v);
  }

  // Host access bundles: every link between a host's NICs and a switch. A link from the host
  // vertex itself (topology.conf knows hosts, not NICs) counts only for hosts whose NICs are
  // unknown, so that merging Slurm's view with ibnetdiscover's does not count a host twice.
  // Read from the switches' side (the links inside millions of hosts are none of these), then
  // put in link order, the order a pass over every link gave.
  std::unordered_map<VertexId, std::vector<LinkId>> access_by_host;
  std::unordered_map<VertexId, std::vector<LinkId>> direct_by_host;
  for (const VertexId s : all_switches) {
    for (const LinkId l : graph.links_of(s)) {
      const Vertex& device = graph.vertex(graph.link(l).other_end(s));
      if (is_fabric_switch(device) || device.host == no_vertex) continue;
      (device.kind == VertexKind::host ? direct_by_host : access_by_host)[device.host].push_back(l);
    }
  }
  for (auto* by_host : {&access_by_host, &direct_by_host}) {
    for (auto& [host, links] : *by_host) std::sort(links.begin(), links.end());
  }
  for (auto& [host, links] : direct_by_host) access_by_host.try_emplace(host, std::move(links));
  for (const auto& [host, links] : access_by_host) hosts_.push_back(host);
  std::sort(hosts_.begin(), hosts_.end());
  host_index_.assign(vertex_count, none);
  const std::vector<std::uint32_t>& host_index = host_index_;
  for (std::uint32_t i = 0; i < hosts_.size(); ++i) {
    host_index_[hosts_[i]] = i;
    bundles_.push_back({hosts_[i], std::move(access_by_host[hosts_[i]])});
  }
  for (const VertexId v : all_switches) {
    const Vertex& vertex = graph.vertex(v);
    Bundle uplinks{v, {}};
    for (const LinkId l : graph.links_of(v)) {
      const Vertex& other = graph.vertex(graph.link(l).other_end(v));
      if (is_fabric_switch(other) && other.tier > vertex.tier) uplinks.links.push_back(l);
    }
    if (!uplinks.links.empty()) {
      bundle_of_vertex_[v] = static_cast<std::uint32_t>(bundles_.size());
      bundles_.push_back(std::move(uplinks));
    }
  }
  capacity_gbps_.resize(resource_count());
  bundle_latency_us_.resize(bundles_.size());
  for (std::size_t b = 0; b < bundles_.size(); ++b) {
    double weakest = std::numeric_limits<double>::infinity();
    double slowest_us = 0;
    for (const LinkId l : bundles_[b].links) {
      weakest = std::min(weakest, graph.link(l).spec.capacity_gbps);
      slowest_us = std::max(slowest_us, graph.link(l).spec.latency_us);
    }
    capacity_gbps_[b] = capacity_gbps_[b + bundles_.size()] = weakest * static_cast<double>(bundles_[b].links.size());
    bundle_latency_us_[b] = slowest_us;
  }

  for (std::uint32_t i = 0; i < hosts_.size(); ++i) groups_.push_back(Group{0, {}, {}, {i}, {}});

  // Switches of one tier that serve a common child group are one group: the spines of a pod
  // share its leaves, the cores share the pods.
  for (int tier = 1; tier <= max_tier; ++tier) {
    std::vector<VertexId> switches;
    for (const VertexId v : all_switches) {
      if (static_cast<int>(graph.vertex(v).tier) == tier) switches.push_back(v);
    }
    std::vector<std::vector<std::uint32_t>> children(switches.size());
    for (std::size_t i = 0; i < switches.size(); ++i) {
      for (const LinkId l : graph.links_of(switches[i])) {
        const VertexId w = graph.link(l).other_end(switches[i]);
        const Vertex& other = graph.vertex(w);
        if (!is_fabric_switch(other) && other.host != no_vertex && host_index[other.host] != none) {
          children[i].push_back(host_index[other.host]);
        } else if (is_fabric_switch(other) && static_cast<int>(other.tier) < tier && group_of_switch_[w] != none) {
          children[i].push_back(group_of_switch_[w]);
        }
      }
      std::sort(children[i].begin(), children[i].end());
      children[i].erase(std::unique(children[i].begin(), children[i].end()), children[i].end());
    }
    std::vector<std::uint32_t> union_parent(switches.size());
    std::iota(union_parent.begin(), union_parent.end(), 0u);
    std::unordered_map<std::uint32_t, std::uint32_t> first_parent_of_child;
    for (std::uint32_t i = 0; i < switches.size(); ++i) {
      for (const std::uint32_t child : children[i]) {
        const auto [it, inserted] = first_parent_of_child.try_emplace(child, i);
        if (!inserted) union_parent[find_root(union_parent, i)] = find_root(union_parent, it->second);
      }
    }
    std::unordered_map<std::uint32_t, std::uint32_t> group_of_root;
    for (std::uint32_t i = 0; i < switches.size(); ++i) {
      const std::uint32_t root = find_root(union_parent, i);
      auto [it, inserted] = group_of_root.try_emplace(root, static_cast<std::uint32_t>(groups_.size()));
      if (inserted) groups_.push_back(Group{tier, {}, {}, {}, {}});
      Group& group = groups_[it->second];
      group.switches.push_back(switches[i]);
      group.children.insert(group.children.end(), children[i].begin(), children[i].end());
      group_of_switch_[switches[i]] = it->second;
    }
    for (const auto& [root, g] : group_of_root) {
      Group& group = groups_[g];
      std::sort(group.children.begin(), group.children.end());
      group.children.erase(std::unique(group.children.begin(), group.children.end()), group.children.end());
      // A child reached from two tiers (a leaf cabled to a core directly) keeps its lower parent.
      std::erase_if(group.children, [&](std::uint32_t child) { return groups_[child].parent.has_value(); });
      for (const std::uint32_t child : group.children) {
        groups_[child].parent = g;
        group.hosts.insert(group.hosts.end(), groups_[child].hosts.begin(), groups_[child].hosts.end());
      }
      std::sort(group.hosts.begin(), group.hosts.end());
    }
  }
  climbs_.reserve(groups_.size());
  for (const Group& group : groups_) climbs_.push_back({group.parent.value_or(none), group.level});
}

std::optional<std::uint32_t> FabricHierarchy::common_group(std::uint32_t host_a, std::uint32_t host_b) const {
  // Parents sit at higher levels than their children: climbing the lower of the two meets the
  // common ancestor without listing either path (this runs once per flow of a prediction).
  std::uint32_t a = host_a;
  std::uint32_t b = host_b;
  while (a != none && b != none && a != b) {
    if (climbs_[a].level <= climbs_[b].level) {
      a = climbs_[a].parent;
    } else {
      b = climbs_[b].parent;
    }
  }
  if (a == none || b == none) return std::nullopt;
  return a;
}

void FabricHierarchy::spread(const Bundle& bundle, VertexId from, double share, ReachedByTier& reached) {
  const double per_link = share / static_cast<double>(bundle.links.size());
  for (const LinkId l : bundle.links) {
    const Link& link = graph_.link(l);
    const VertexId to = is_fabric_switch(graph_.vertex(link.a)) && link.a != from ? link.a : link.b;
    if (scratch_share_[to] == 0) reached[static_cast<int>(graph_.vertex(to).tier)].push_back(to);
    scratch_share_[to] += per_link;
  }
}

void FabricHierarchy::climb(ReachedByTier& reached, int limit_level, std::uint32_t offset,
                            std::vector<ResourceShare>& shares) {
  for (int tier = 1; tier < limit_level && tier <= max_tier; ++tier) {
    // The last tier's uplinks carry the flow to limit_level, where it turns: where they lead
    // takes no share. (Spreading there anyway visited every core link of a host's climb.)
    const bool last = tier + 1 == limit_level;
    for (const VertexId s : reached[tier]) {
      const std::uint32_t bundle = bundle_of_vertex_[s];
      if (bundle != none) {
        shares.push_back({bundle + offset, scratch_share_[s]});
        if (!last) spread(bundles_[bundle], s, scratch_share_[s], reached);
      }
    }
  }
  for (const auto& switches : reached) {
    for (const VertexId s : switches) scratch_share_[s] = 0;
  }
}

std::span<const ResourceShare> FabricHierarchy::profile(std::uint32_t group, int limit_level, bool downwards) {
  const std::uint64_t key =
      std::uint64_t{group} << 8 | static_cast<std::uint64_t>(limit_level) << 1 | (downwards ? 1 : 0);
  if (const auto it = profiles_.find(key); it != profiles_.end()) return it->second;
  std::vector<ResourceShare> shares;
  append_profile(group, limit_level, downwards, shares);
  return profiles_.emplace(key, std::move(shares)).first->second;
}

void FabricHierarchy::append_profile(std::uint32_t group, int limit_level, bool downwards,
                                     std::vector<ResourceShare>& shares) {
  const std::uint32_t offset = downwards ? static_cast<std::uint32_t>(bundles_.size()) : 0;
  ReachedByTier reached;
  const auto& hosts = groups_[group].hosts;
  const double per_host = 1.0 / static_cast<double>(hosts.size());
  for (const std::uint32_t h : hosts) {
    shares.push_back({h + offset, per_host});
    spread(bundles_[h], hosts_[h], per_host, reached);
  }
  climb(reached, limit_level, offset, shares);
}

VertexId FabricHierarchy::access_switch(VertexId nic, std::vector<LinkId>* ports) const {
  VertexId found = no_vertex;
  bool several = false;
  const VertexId host = graph_.vertex(nic).host;
  for (const LinkId l : graph_.links_of(nic)) {
    const VertexId other = graph_.link(l).other_end(nic);
    const Vertex& vertex = graph_.vertex(other);
    if (ports != nullptr && vertex.host != host) ports->push_back(l);
    if (!is_fabric_switch(vertex)) continue;
    several = several || (found != no_vertex && found != other);
    found = other;
  }
  return several ? no_vertex : found;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): groups switches by tier and cabling in one pass per tier
void FabricHierarchy::build_cabled_groups() {
  const std::size_t vertex_count = graph_.vertex_count();
  cabled_group_of_switch_.assign(vertex_count, none);
  std::array<std::vector<VertexId>, max_tier + 1> switches_by_tier;
  for (const VertexId v : switches_) switches_by_tier[static_cast<int>(graph_.vertex(v).tier)].push_back(v);
  // A tier's switches that reach a common group below are one group; a leaf reaches none, so
  // each leaf is its own.
  for (int tier = 1; tier <= max_tier; ++tier) {
    const std::vector<VertexId>& switches = switches_by_tier[tier];
    std::vector<std::uint32_t> union_parent(switches.size());
    std::iota(union_parent.begin(), union_parent.end(), 0u);
    std::unordered_map<std::uint32_t, std::uint32_t> first_parent_of_child;
    const auto for_each_child = [&](std::uint32_t i, auto&& visit) {
      for (const LinkId l : graph_.links_of(switches[i])) {
        const VertexId w = graph_.link(l).other_end(switches[i]);
        if (is_fabric_switch(graph_.vertex(w)) && static_cast<int>(graph_.vertex(w).tier) < tier &&
            cabled_group_of_switch_[w] != none) {
          visit(cabled_group_of_switch_[w]);
        }
      }
    };
    for (std::uint32_t i = 0; i < switches.size(); ++i) {
      for_each_child(i, [&](std::uint32_t child) {
        const auto [it, inserted] = first_parent_of_child.try_emplace(child, i);
        if (!inserted) union_parent[find_root(union_parent, i)] = find_root(union_parent, it->second);
      });
    }
    std::unordered_map<std::uint32_t, std::uint32_t> group_of_root;
    for (std::uint32_t i = 0; i < switches.size(); ++i) {
      const auto [it, inserted] =
          group_of_root.try_emplace(find_root(union_parent, i), static_cast<std::uint32_t>(cabled_groups_.size()));
      if (inserted) cabled_groups_.push_back(CabledGroup{tier, std::nullopt});
      cabled_group_of_switch_[switches[i]] = it->second;
    }
    for (std::uint32_t i = 0; i < switches.size(); ++i) {
      for_each_child(i, [&](std::uint32_t child) {
        if (!cabled_groups_[child].parent) cabled_groups_[child].parent = cabled_group_of_switch_[switches[i]];
      });
    }
  }
}

std::optional<int> FabricHierarchy::switch_meeting_level(VertexId a, VertexId b) {
  if (a == b) return static_cast<int>(graph_.vertex(a).tier);
  if (cabled_group_of_switch_.empty()) build_cabled_groups();
  std::optional<std::uint32_t> group_a = cabled_group_of_switch_[a];
  std::optional<std::uint32_t> group_b = cabled_group_of_switch_[b];
  // Two switches of one group are not cabled to each other: they meet in the group above.
  if (group_a == group_b) group_a = group_b = cabled_groups_[*group_a].parent;
  while (group_a && group_b && *group_a != *group_b) {
    if (cabled_groups_[*group_a].level <= cabled_groups_[*group_b].level) {
      group_a = cabled_groups_[*group_a].parent;
    } else {
      group_b = cabled_groups_[*group_b].parent;
    }
  }
  if (!group_a || !group_b) return std::nullopt;
  return cabled_groups_[*group_a].level;
}

std::span<const ResourceShare> FabricHierarchy::switch_profile(VertexId s, int limit_level, bool downwards) {
  // Above every group key (groups number fewer than 2^32).
  const std::uint64_t key = std::uint64_t{1} << 63 | std::uint64_t{s} << 8 |
                            static_cast<std::uint64_t>(limit_level) << 1 | (downwards ? 1 : 0);
  if (const auto it = profiles_.find(key); it != profiles_.end()) return it->second;
  std::vector<ResourceShare> shares;
  ReachedByTier reached;
  reached[static_cast<int>(graph_.vertex(s).tier)].push_back(s);
  scratch_share_[s] = 1.0;
  climb(reached, limit_level, downwards ? static_cast<std::uint32_t>(bundles_.size()) : 0, shares);
  return profiles_.emplace(key, std::move(shares)).first->second;
}

// Follows one representative chain of switches up: in a tiered fabric every chain has as many
// hops, and cable latencies within a tier are alike.
double FabricHierarchy::chain_latency_us(VertexId current, int limit_level) const {
  double latency = 0;
  while (current != no_vertex && static_cast<int>(graph_.vertex(current).tier) < limit_level) {
    const std::uint32_t bundle = bundle_of_vertex_[current];
    if (bundle == none) break;
    latency += bundle_latency_us_[bundle];
    const Link& up = graph_.link(bundles_[bundle].links.front());
    current = up.other_end(current);
  }
  return latency;
}

double FabricHierarchy::latency_to_level_us(std::uint32_t group, int limit_level) const {
  const std::uint32_t host = groups_[group].hosts.front();
  VertexId first_switch = no_vertex;
  for (const LinkId l : bundles_[host].links) {
    const Link& link = graph_.link(l);
    first_switch = is_fabric_switch(graph_.vertex(link.a)) ? link.a : link.b;
  }
  return bundle_latency_us_[host] + chain_latency_us(first_switch, limit_level);
}

double FabricHierarchy::switch_latency_to_level_us(VertexId s, int limit_level) const {
  return chain_latency_us(s, limit_level);
}

}  // namespace fb::topo
