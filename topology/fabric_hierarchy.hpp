#pragma once
// The fabric seen from the hosts: which host hangs off which leaves, and the groups of switches
// that serve the same hosts (a leaf; the spines of a pod; the cores). Groups nest, so every pair
// of hosts meets at one lowest common group, and up-down routing with even ECMP splitting sends
// the same share of a group's traffic over each switch's uplinks whatever the destination
// beyond. That is what makes fabric-wide traffic patterns cheap to model.
//
// Resources (capacity shared by the flows that cross it, per direction):
//   up resource of host h      : all links from h's NICs (or h itself) to the fabric, outbound
//   up resource of switch s    : all of s's uplinks, upwards
//   down resources             : the same link bundles in the opposite direction
// ECMP hashes flows evenly over a bundle's links, so a bundle fills when its weakest link does:
// its capacity is link count x the weakest link's capacity.

#include "topology/flow_model.hpp"
#include "topology/graph.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace fb::topo {

class FabricHierarchy {
 public:
  struct Group {
    int level = 0;                        // 0: one host; k: switches of tier k
    std::vector<VertexId> switches;       // empty for host groups
    std::vector<std::uint32_t> children;  // groups one level down (or further, for skipped tiers)
    std::vector<std::uint32_t> hosts;     // host indices below, in host order
    std::optional<std::uint32_t> parent;
  };

  // Throws InputError when a fabric switch has no tier.
  explicit FabricHierarchy(const Graph& graph);

  const Graph& graph() const { return graph_; }
  // Hosts with at least one fabric link, in vertex order.
  std::span<const VertexId> hosts() const { return hosts_; }
  std::span<const Group> groups() const { return groups_; }
  std::uint32_t host_group(std::uint32_t host_index) const { return host_index; }
  // A host vertex's index in hosts(); none for a vertex that is no host with a fabric link.
  std::optional<std::uint32_t> index_of_host(VertexId host) const {
    if (host >= host_index_.size() || host_index_[host] == std::numeric_limits<std::uint32_t>::max()) {
      return std::nullopt;
    }
    return host_index_[host];
  }
  bool has_fabric() const { return !hosts_.empty(); }

  // Resource indices: [0, bundle_count) up, [bundle_count, 2 * bundle_count) down.
  std::size_t resource_count() const { return 2 * bundles_.size(); }
  std::span<const double> resource_capacity_gbps() const { return capacity_gbps_; }
  std::span<const LinkId> resource_links(std::uint32_t resource) const {
    return bundles_[resource % bundles_.size()].links;
  }
  bool resource_is_up(std::uint32_t resource) const { return resource < bundles_.size(); }
  // The vertex whose bundle the resource is: a host vertex or a switch.
  VertexId resource_owner(std::uint32_t resource) const { return bundles_[resource % bundles_.size()].owner; }
  bool resource_is_host_access(std::uint32_t resource) const { return resource % bundles_.size() < hosts_.size(); }

  // Lowest group containing both hosts; none when they sit in separate fabrics.
  std::optional<std::uint32_t> common_group(std::uint32_t host_a, std::uint32_t host_b) const;

  // The shares of one flow from a host of `group` (hosts sending alike) over the resources it
  // crosses below `limit_level`, upwards; `downwards` gives the mirror image for traffic into
  // the group (exact when every switch of a group has the same uplink fan-out, as fat-trees do).
  std::span<const ResourceShare> profile(std::uint32_t group, int limit_level, bool downwards);
  // The same shares appended to `shares`, not kept: a caller that asks once per group (the
  // collective model's climbs, 190,000 groups at a million GPUs) saves the table's node, vector
  // and cache misses.
  void append_profile(std::uint32_t group, int limit_level, bool downwards, std::vector<ResourceShare>& shares);

  // Latency of the longest hop chain from a host of the group up to limit_level.
  double latency_to_level_us(std::uint32_t group, int limit_level) const;

  // Per-port traffic (a rail) enters the fabric at its NIC's switch rather than spread over its
  // host's: a scalable unit's rail leaves share hosts, so they are one group, yet rail i's leaf
  // reaches rail j's only through the spines.
  // The one switch all of the NIC's fabric ports go to; no_vertex when it has none of its own
  // (the host's links stand for it) or ports on several switches.
  // `ports`, where given, gets the NIC's links that leave its host, from the same walk of its links.
  VertexId access_switch(VertexId nic, std::vector<LinkId>* ports = nullptr) const;
  // The level at which traffic entering at switch a and leaving at switch b turns down: a's tier
  // when a == b, else the tier of the lowest switches both reach going up. Groups joined by
  // cables alone, not by shared hosts, decide it: one rail's spines (a rail-aligned pod) do not
  // reach another rail's leaves, though both serve the same hosts. None when nothing joins them.
  std::optional<int> switch_meeting_level(VertexId a, VertexId b);
  // As profile(), for a flow entering the fabric at switch s (its ports are the caller's).
  std::span<const ResourceShare> switch_profile(VertexId s, int limit_level, bool downwards);
  double switch_latency_to_level_us(VertexId s, int limit_level) const;

 private:
  struct Bundle {
    VertexId owner;
    std::vector<LinkId> links;
  };
  using ReachedByTier = std::array<std::vector<VertexId>, static_cast<std::size_t>(SwitchTier::core) + 1>;

  // Spreads `share` over the bundle's links onto the switches they reach.
  void spread(const Bundle& bundle, VertexId from, double share, ReachedByTier& reached);
  // Carries the shares seeded on `reached` up through every tier below limit_level, into `shares`.
  void climb(ReachedByTier& reached, int limit_level, std::uint32_t offset, std::vector<ResourceShare>& shares);
  // Built on the first switch_meeting_level: the analyses of whole fabrics never need it.
  void build_cabled_groups();
  double chain_latency_us(VertexId from_switch, int limit_level) const;

  const Graph& graph_;
  std::vector<VertexId> hosts_;
  std::vector<VertexId> switches_;         // every fabric switch, in vertex order
  std::vector<std::uint32_t> host_index_;  // by vertex: its index in hosts_, or max
  std::vector<Bundle> bundles_;            // hosts first (index = host index), then switches with uplinks
  std::vector<double> capacity_gbps_;
  // Per bundle, its slowest link's latency: a climb's latency adds one per tier, asked for every
  // host's climb (reading a spine's 21 links each time).
  std::vector<double> bundle_latency_us_;
  std::vector<std::uint32_t> bundle_of_vertex_;  // switch vertex -> bundle, or max
  std::vector<Group> groups_;
  // Each group's level and parent (none: max), 8 bytes a group: common_group climbs these once
  // per flow of a prediction, millions of times at random hosts, where the 88-byte groups missed
  // the cache on every step.
  struct Climb {
    std::uint32_t parent;
    std::int32_t level;
  };
  std::vector<Climb> climbs_;
  std::vector<std::uint32_t> group_of_switch_;
  // (group, limit level, downwards) packed: group << 8 | level << 1 | downwards. Node-based, so the
  // spans handed out stay valid as it grows.
  std::unordered_map<std::uint64_t, std::vector<ResourceShare>> profiles_;
  std::vector<double> scratch_share_;  // per vertex, zero between profile computations
  struct CabledGroup {
    int level = 0;
    std::optional<std::uint32_t> parent;
  };
  std::vector<CabledGroup> cabled_groups_;
  std::vector<std::uint32_t> cabled_group_of_switch_;
};

}  // namespace fb::topo
