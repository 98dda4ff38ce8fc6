// The fabric layer: what a placement of ranks can carry, as max-min fair flows over every link
// (collective_model.hpp describes both layers).

#include "topology/collective_model.hpp"

#include "common/errors.hpp"
#include "topology/fabric_hierarchy.hpp"
#include "topology/flow_model.hpp"
#include "topology/host_routes.hpp"
#include "topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <initializer_list>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace fb::topo {
namespace {

// alltoall beyond this many peers per node: evenly spaced peers stand for all of them.
constexpr std::size_t alltoall_sampled_peers = 127;

bool is_network(LinkType type) {
  return type == LinkType::infiniband || type == LinkType::roce || type == LinkType::efa || type == LinkType::ethernet;
}

// A flow between GPUs (or CPUs) of two hosts, as Flows::add_fabric_hop takes it.
struct FabricHop {
  VertexId from = no_vertex;
  VertexId via = no_vertex;
  VertexId from_nic = no_vertex;
  VertexId to_nic = no_vertex;
  VertexId to = no_vertex;
};

// Another job's fabric flows (its hops, or host pairs for an all-pairs exchange), planned once and
// added to every solve that crosses the fabric. Flows inside its hosts are left out: no two jobs
// share a host, so they meet no link of the predicted job.
struct CompetingJob {
  std::string name;
  std::vector<FabricHop> hops;
  std::vector<std::pair<VertexId, VertexId>> host_pairs;
  double pair_weight = 1;  // alltoall_pair_weight
};

// ---------------------------------------------------------------------------------------------
// Flows over two resource spaces: directed links [0, 2 * links) for paths inside hosts and NIC
// ports, then the fabric hierarchy's bundles. Network resources carry their transport's
// collective efficiency, so a 400G port offers what NCCL gets through it.
//
// The pieces flows are made of (the path between two devices of a host, a NIC's ports, a host's
// or a NIC's switch's way up or down the fabric to a level) are built once per model and shared
// by all its solves; a flow is the list of its pieces' indices, with a weight: the connections
// it stands for.
class FlowPaths {
 public:
  FlowPaths(const Graph& graph, std::optional<FabricHierarchy>& fabric, HostRoutes& host_routes)
      : graph_(graph), fabric_(fabric), host_routes_(host_routes) {
    const std::size_t link_resources = 2 * graph.link_count();
    capacity_gbps_.resize(link_resources + (fabric_ ? fabric_->resource_count() : 0));
    for (LinkId l = 0; l < graph.link_count(); ++l) {
      const LinkSpec& spec = graph.link(l).spec;
      capacity_gbps_[2 * l] = capacity_gbps_[2 * l + 1] =
          spec.capacity_gbps * (is_network(spec.type) ? collective_efficiency(spec) : 1.0);
    }
    if (fabric_) {
      for (std::size_t r = 0; r < fabric_->resource_count(); ++r) {
        const auto links = fabric_->resource_links(static_cast<std::uint32_t>(r));
        const double efficiency = links.empty() ? 1.0 : collective_efficiency(graph.link(links.front()).spec);
        capacity_gbps_[link_resources + r] = fabric_->resource_capacity_gbps()[r] * efficiency;
      }
    }
  }

  struct LocalPath {
    std::uint32_t piece = 0;
    double latency_us = 0;
  };

  const LocalPath& local_path(VertexId from, VertexId to) {
    if (local_path_index_.empty()) local_path_index_.resize(graph_.vertex_count());
    // A vertex reaches a handful of others inside its host: a short list beats a hash lookup.
    std::vector<std::pair<VertexId, std::uint32_t>>& known = local_path_index_[from];
    for (const auto& [known_to, index] : known)
      if (known_to == to) return local_paths_[index];
    known.emplace_back(to, static_cast<std::uint32_t>(local_paths_.size()));
    LocalPath& path = local_paths_.emplace_back();
    // A rank placed on a NIC (host memory on a host the topology knows only by its NIC) is
    // already where its fabric hop starts.
    if (from != to) {
      const Route* route = host_routes_.between(from, to);
      if (!route) {
        throw InputError(fmt::format("no route from {} to {}", graph_.vertex(from).name,
                                     graph_.vertex(to).name));
      }
      for (const LinkUse& use : route->uses) {
        shares_.push_back({static_cast<std::uint32_t>(directed_link_index(use)), use.fraction});
      }
      path.latency_us = route->latency_us;
    }
    path.piece = end_piece();
    return path;
  }

  // The NIC's own port(s) to the fabric, one direction: a rail's share that pooling would hide.
  std::uint32_t port(VertexId nic, bool outbound) {
    if (port_pieces_.empty()) port_pieces_.resize(2 * graph_.vertex_count(), no_piece);
    std::uint32_t& piece = port_pieces_[2 * std::size_t{nic} + (outbound ? 1 : 0)];
    if (piece == no_piece) {
      std::vector<LinkId> ports;
      for (const LinkId l : graph_.links_of(nic)) {
        if (graph_.vertex(graph_.link(l).other_end(nic)).host != graph_.vertex(nic).host) ports.push_back(l);
      }
      for (const LinkId l : ports) {
        const bool from_a = (graph_.link(l).a == nic) == outbound;
        shares_.push_back({static_cast<std::uint32_t>(2 * static_cast<std::size_t>(l) + (from_a ? 0 : 1)),
                           1.0 / static_cast<double>(ports.size())});
      }
      piece = end_piece();
    }
    return piece;
  }

  // A host's way up (or down) the fabric to the level where it meets the other end, and the
  // latency of that climb.
  struct FabricClimb {
    std::uint32_t piece = no_piece;
    double latency_us = 0;
  };
  const FabricClimb& fabric_climb(std::uint32_t host, int level, bool downwards) {
    constexpr std::size_t slots_per_host = 2 * (static_cast<std::size_t>(SwitchTier::core) + 1);
    if (fabric_climbs_.empty()) fabric_climbs_.resize(slots_per_host * fabric_->hosts().size());
    FabricClimb& climb = fabric_climbs_[slots_per_host * host + 2 * static_cast<std::size_t>(level) + (downwards ? 1 : 0)];
    if (climb.piece == no_piece) {
      // Past its own ports (the profile's first share), a host's climb depends only on where
      // those ports lead: hosts cabled to the same switches in the same order climb alike, so
      // the first one's profile serves the others, its first share moved to their ports.
      std::vector<VertexId> cabling{static_cast<VertexId>(level), downwards ? 1u : 0u};
      const VertexId host_vertex = fabric_->hosts()[host];
      for (const LinkId l : fabric_->resource_links(host)) {
        const Link& link = graph_.link(l);
        cabling.push_back(graph_.vertex(link.a).host == host_vertex ? link.b : link.a);
      }
      const auto [alike, first] = climbs_by_cabling_.try_emplace(std::move(cabling), host);
      if (first) {
        const auto offset = static_cast<std::uint32_t>(2 * graph_.link_count());
        for (const ResourceShare& use : fabric_->profile(fabric_->host_group(host), level, downwards)) {
          shares_.push_back({use.resource + offset, use.share});
        }
      } else {
        const std::uint32_t piece = fabric_climb(alike->second, level, downwards).piece;
        const std::uint32_t begin = first_share_[piece];
        const std::uint32_t end = first_share_[piece + 1];
        shares_.reserve(shares_.size() + (end - begin));  // the copies below read shares_ itself
        shares_.push_back({shares_[begin].resource - alike->second + host, shares_[begin].share});
        for (std::uint32_t s = begin + 1; s < end; ++s) shares_.push_back(shares_[s]);
      }
      climb.piece = end_piece();
      climb.latency_us = fabric_->latency_to_level_us(host, level);
    }
    return climb;
  }

  // The way up (or down) from the switch a NIC with ports of its own enters the fabric at, and
  // the latency of that climb from the switch.
  const FabricClimb& switch_climb(VertexId entry, int level, bool downwards) {
    FabricClimb& climb =
        switch_climbs_[std::uint64_t{entry} << 8 | static_cast<std::uint64_t>(level) << 1 | (downwards ? 1 : 0)];
    if (climb.piece == no_piece) {
      const auto offset = static_cast<std::uint32_t>(2 * graph_.link_count());
      for (const ResourceShare& use : fabric_->switch_profile(entry, level, downwards)) {
        shares_.push_back({use.resource + offset, use.share});
      }
      climb.piece = end_piece();
      climb.latency_us = fabric_->switch_latency_to_level_us(entry, level);
    }
    return climb;
  }

  // The one switch the NIC's own fabric ports go to (FabricHierarchy::access_switch), looked up
  // once per NIC: every hop through it asks.
  VertexId access_switch(VertexId nic) {
    if (access_switches_.empty()) access_switches_.resize(graph_.vertex_count());
    std::optional<VertexId>& entry = access_switches_[nic];
    if (!entry) entry = fabric_->access_switch(nic);
    return *entry;
  }

  // The latency from a host up to its leaves, for hops that enter the fabric at a NIC's switch.
  double latency_to_leaves_us(std::uint32_t host) {
    if (latency_to_leaves_us_.empty()) latency_to_leaves_us_.resize(fabric_->hosts().size());
    std::optional<double>& latency_us = latency_to_leaves_us_[host];
    if (!latency_us) latency_us = fabric_->latency_to_level_us(host, 1);
    return *latency_us;
  }

  // The fabric level where two hosts' paths meet (hosts by index in the fabric); none when they
  // sit in separate fabrics.
  std::optional<int> meeting_level(std::uint32_t from_host, std::uint32_t to_host) const {
    const std::optional<std::uint32_t> meeting = fabric_->common_group(from_host, to_host);
    if (!meeting) return std::nullopt;
    return fabric_->groups()[*meeting].level;
  }

  // The level where traffic entering at switch a and leaving at switch b turns down.
  std::optional<int> switch_meeting_level(VertexId a, VertexId b) const { return fabric_->switch_meeting_level(a, b); }

  VertexId host_vertex(std::uint32_t host_index) const { return fabric_->hosts()[host_index]; }

  std::uint32_t host_index(VertexId host) const {
    const auto hosts = fabric_->hosts();
    const auto it = std::lower_bound(hosts.begin(), hosts.end(), host);
    if (it == hosts.end() || *it != host) {
      throw InputError(fmt::format("host {} has no fabric link", graph_.vertex(host).name));
    }
    return static_cast<std::uint32_t>(it - hosts.begin());
  }

  const Graph& graph() const { return graph_; }
  std::span<const double> capacity_gbps() const { return capacity_gbps_; }
  // The pieces so far, for a solve (valid until the next piece is added).
  PieceFlows pieces() const { return PieceFlows{shares_, first_share_, {}, {}, {}}; }

  std::string describe(std::uint32_t resource) const {
    const std::size_t link_resources = 2 * graph_.link_count();
    if (resource < link_resources) {
      const Link& link = graph_.link(resource / 2);
      const bool from_a = resource % 2 == 0;
      const VertexId from = from_a ? link.a : link.b;
      const std::string lanes = link.spec.lane_count > 1 ? fmt::format(" x{}", link.spec.lane_count) : "";
      return fmt::format("{} -> {} ({}{}, {:.1f} GB/s effective of {:.1f})", graph_.vertex(from).name,
                         graph_.vertex(link.other_end(from)).name, link.spec.technology, lanes,
                         capacity_gbps_[resource], link.spec.datasheet_gbps);
    }
    const auto fabric_resource = static_cast<std::uint32_t>(resource - link_resources);
    const VertexId owner = fabric_->resource_owner(fabric_resource);
    const bool up = fabric_->resource_is_up(fabric_resource);
    if (fabric_->resource_is_host_access(fabric_resource)) {
      return fmt::format("{}: NIC ports {} the fabric ({:.1f} GB/s)", graph_.vertex(owner).name, up ? "to" : "from",
                         capacity_gbps_[resource]);
    }
    return fmt::format("{} {} ({:.1f} GB/s)", graph_.vertex(owner).name, up ? "uplinks" : "downlinks",
                       capacity_gbps_[resource]);
  }

 private:
  static constexpr std::uint32_t no_piece = std::numeric_limits<std::uint32_t>::max();

  // Closes the piece whose shares were just appended.
  std::uint32_t end_piece() {
    first_share_.push_back(static_cast<std::uint32_t>(shares_.size()));
    return static_cast<std::uint32_t>(first_share_.size() - 2);
  }

  const Graph& graph_;
  std::optional<FabricHierarchy>& fabric_;
  HostRoutes& host_routes_;
  std::vector<double> capacity_gbps_;
  std::vector<ResourceShare> shares_;             // every piece's resources, piece after piece
  std::vector<std::uint32_t> first_share_{0};     // piece p: [first_share_[p], first_share_[p + 1])
  // Paths by where they start: the index into local_paths_ of each destination. A deque never
  // moves its elements, so a path handed out stays valid while more are added.
  std::vector<std::vector<std::pair<VertexId, std::uint32_t>>> local_path_index_;
  std::deque<LocalPath> local_paths_;
  // Sized once when first used: by NIC and direction, and by fabric host, level and direction.
  std::vector<std::uint32_t> port_pieces_;
  std::vector<FabricClimb> fabric_climbs_;
  // (level, direction, the far ends of the host's fabric links) -> the first host cabled so.
  std::map<std::vector<VertexId>, std::uint32_t> climbs_by_cabling_;
  // By entry switch, level and direction; node-based, so a climb handed out stays valid.
  std::unordered_map<std::uint64_t, FabricClimb> switch_climbs_;
  std::vector<std::optional<VertexId>> access_switches_;  // by NIC vertex, once looked up
  std::vector<std::optional<double>> latency_to_leaves_us_;  // by fabric host, once looked up
};

// The flows of one solve, over a model's shared paths.
class Flows {
 public:
  explicit Flows(FlowPaths& paths) : paths_(paths) {}

  using LocalPath = FlowPaths::LocalPath;
  const LocalPath& local_path(VertexId from, VertexId to) { return paths_.local_path(from, to); }

  // One flow through these paths; returns its latency.
  double add(std::initializer_list<const LocalPath*> paths) {
    double latency_us = 0;
    for (const LocalPath* path : paths) {
      piece_of_use_.push_back(path->piece);
      latency_us += path->latency_us;
    }
    end_flow(1.0);
    return latency_us;
  }

  // A flow between GPUs (or CPUs) of two hosts: out to `from_nic` (through `via`, a GPU near it,
  // when PXN forwards over NVLink), the NIC port, the fabric, the far NIC port, in to `to`. NICs
  // with ports of their own enter the fabric at their switch (a rail leaf reaches another rail's
  // leaf only through the spines); NICs the fabric knows only through their host's links enter
  // through the host's.
  double add_fabric_hop(VertexId from, VertexId via, VertexId from_nic, VertexId to_nic, VertexId to) {
    const Graph& graph = paths_.graph();
    const std::uint32_t from_host = paths_.host_index(graph.vertex(from_nic).host);
    const std::uint32_t to_host = paths_.host_index(graph.vertex(to_nic).host);
    const VertexId from_switch = paths_.access_switch(from_nic);
    const VertexId to_switch = paths_.access_switch(to_nic);
    const bool per_port = from_switch != no_vertex && to_switch != no_vertex;
    const std::optional<int> level =
        per_port ? paths_.switch_meeting_level(from_switch, to_switch) : paths_.meeting_level(from_host, to_host);
    if (!level) {
      throw InputError(fmt::format("no fabric route from {} to {}", graph.vertex(from).name, graph.vertex(to).name));
    }
    double latency_us = 0;
    const auto local = [&](VertexId a, VertexId b) {
      const LocalPath& path = paths_.local_path(a, b);
      piece_of_use_.push_back(path.piece);
      latency_us += path.latency_us;
    };
    if (via != from) local(from, via);
    local(via, from_nic);
    piece_of_use_.push_back(paths_.port(from_nic, true));
    if (per_port) {
      const FlowPaths::FabricClimb& up = paths_.switch_climb(from_switch, *level, false);
      piece_of_use_.push_back(up.piece);
      const FlowPaths::FabricClimb& down = paths_.switch_climb(to_switch, *level, true);
      piece_of_use_.push_back(down.piece);
      latency_us += paths_.latency_to_leaves_us(from_host) + up.latency_us + paths_.latency_to_leaves_us(to_host) +
                    down.latency_us;
    } else {
      const FlowPaths::FabricClimb& up = paths_.fabric_climb(from_host, *level, false);
      piece_of_use_.push_back(up.piece);
      const FlowPaths::FabricClimb& down = paths_.fabric_climb(to_host, *level, true);
      piece_of_use_.push_back(down.piece);
      latency_us += up.latency_us + down.latency_us;
    }
    piece_of_use_.push_back(paths_.port(to_nic, false));
    local(to_nic, to);
    end_flow(1.0);
    return latency_us;
  }

  // `weight` host-to-host flows that spread over all of both hosts' NICs (alltoall through PXN);
  // hosts by index in the fabric (FlowPaths::host_index).
  void add_host_pair(std::uint32_t from, std::uint32_t to, double weight) {
    const std::optional<int> level = paths_.meeting_level(from, to);
    if (!level) {
      throw InputError(fmt::format("no fabric route from {} to {}", paths_.graph().vertex(paths_.host_vertex(from)).name,
                                   paths_.graph().vertex(paths_.host_vertex(to)).name));
    }
    piece_of_use_.push_back(paths_.fabric_climb(from, *level, false).piece);
    piece_of_use_.push_back(paths_.fabric_climb(to, *level, true).piece);
    end_flow(weight);
  }

  // Other jobs' flows, added after this job's: they take their fair share of every resource,
  // and solve() answers for this job's flows alone.
  void add_competing(std::span<const CompetingJob> jobs) {
    own_flows_ = weight_.size();
    for (const CompetingJob& job : jobs) {
      competing_.emplace_back(weight_.size(), &job.name);
      for (const FabricHop& hop : job.hops) add_fabric_hop(hop.from, hop.via, hop.from_nic, hop.to_nic, hop.to);
      for (const auto& [from, to] : job.host_pairs) {
        add_host_pair(paths_.host_index(from), paths_.host_index(to), job.pair_weight);
      }
    }
  }

  struct Solution {
    double slowest_gbps = 0;
    std::string limit;  // a full resource on the slowest flow's path
  };

  // The slowest of this job's flows, its rate and its bottleneck: a full resource on its path
  // where no flow runs faster than it (max-min fairness: the one that stopped it).
  Solution solve() const {
    const PieceFlows flows = piece_flows();
    const std::span<const double> capacity_gbps = paths_.capacity_gbps();
    const MaxMinAllocation allocation = solve_max_min(capacity_gbps, flows);
    const auto slowest = std::min_element(allocation.rate_gbps.begin(),
                                          allocation.rate_gbps.begin() + static_cast<std::ptrdiff_t>(own_flows()));
    Solution solution{*slowest, ""};
    // The fastest flow through each piece, then through each resource.
    std::vector<double> fastest_through_piece(flows.piece_count(), 0.0);
    for (std::size_t f = 0; f < flows.size(); ++f) {
      for (const std::uint32_t p : flows.pieces_of(f)) {
        fastest_through_piece[p] = std::max(fastest_through_piece[p], allocation.rate_gbps[f]);
      }
    }
    std::vector<double> fastest_gbps(capacity_gbps.size(), 0.0);
    for (std::size_t p = 0; p < flows.piece_count(); ++p) {
      if (fastest_through_piece[p] == 0) continue;
      for (const ResourceShare& use : flows.shares_of(p)) {
        fastest_gbps[use.resource] = std::max(fastest_gbps[use.resource], fastest_through_piece[p]);
      }
    }
    for (const std::uint32_t p : flows.pieces_of(static_cast<std::size_t>(slowest - allocation.rate_gbps.begin()))) {
      for (const ResourceShare& use : flows.shares_of(p)) {
        if (allocation.saturated[use.resource] && use.share > 0 && fastest_gbps[use.resource] <= *slowest * (1 + 1e-9)) {
          solution.limit = paths_.describe(use.resource) + shared_with(flows, use.resource);
          return solution;
        }
      }
    }
    return solution;
  }

 private:
  void end_flow(double weight) {
    first_use_.push_back(static_cast<std::uint32_t>(piece_of_use_.size()));
    weight_.push_back(weight);
  }

  PieceFlows piece_flows() const {
    PieceFlows flows = paths_.pieces();
    flows.piece_of_use = piece_of_use_;
    flows.first_use = first_use_;
    flows.weight = weight_;
    return flows;
  }

  std::size_t own_flows() const { return std::min(own_flows_, weight_.size()); }

  // ", shared with job 2 (...)" when other jobs' flows cross the resource too.
  std::string shared_with(const PieceFlows& flows, std::uint32_t resource) const {
    std::vector<bool> crosses_piece(flows.piece_count(), false);
    for (std::size_t p = 0; p < flows.piece_count(); ++p) {
      const auto shares = flows.shares_of(p);
      crosses_piece[p] = std::any_of(shares.begin(), shares.end(), [&](const ResourceShare& use) {
        return use.resource == resource && use.share > 0;
      });
    }
    std::string names;
    for (std::size_t j = 0; j < competing_.size(); ++j) {
      const std::size_t end = j + 1 < competing_.size() ? competing_[j + 1].first : flows.size();
      bool crosses = false;
      for (std::size_t f = competing_[j].first; f < end && !crosses; ++f) {
        const auto pieces = flows.pieces_of(f);
        crosses = std::any_of(pieces.begin(), pieces.end(), [&](std::uint32_t p) { return crosses_piece[p]; });
      }
      if (crosses) names += (names.empty() ? "" : ", ") + *competing_[j].second;
    }
    return names.empty() ? names : ", shared with " + names;
  }

  FlowPaths& paths_;
  std::vector<std::uint32_t> piece_of_use_;
  std::vector<std::uint32_t> first_use_{0};
  std::vector<double> weight_;  // per flow: the identical flows it stands for
  std::size_t own_flows_ = std::numeric_limits<std::size_t>::max();  // flows before the competing ones
  std::vector<std::pair<std::size_t, const std::string*>> competing_;  // each job's first flow, its name
};

std::vector<VertexId> nics_of(const Graph& graph, VertexId host) {
  std::vector<VertexId> nics;
  for (const VertexId device : graph.devices_of(host)) {
    if (graph.vertex(device).kind == VertexKind::nic) nics.push_back(device);
  }
  std::sort(nics.begin(), nics.end(), [&](VertexId a, VertexId b) { return graph.vertex(a).index < graph.vertex(b).index; });
  return nics;
}

// Hops from a vertex to every vertex of its host, crossing only switches, CPUs and NICs (a GPU
// relays nothing), as routes inside a host go. Searched once per shape of host and position of
// the source (hosts built alike count alike), into a table by position in the host; shared by
// the rail planners and the nearest-NIC rule.
class HostHops {
 public:
  HostHops(const Graph& graph, HostRoutes& host_routes)
      : graph_(graph), host_routes_(host_routes), table_of_(graph.vertex_count(), no_table) {}

  // None when `to` is not reached from `from` (or sits in another host).
  std::optional<int> between(VertexId from, VertexId to) {
    if (graph_.vertex(to).host != graph_.vertex(from).host) return std::nullopt;
    const int hops = tables_[table(from)][host_routes_.position(to)];
    return hops == unreached ? std::nullopt : std::optional<int>(hops);
  }

 private:
  static constexpr std::uint32_t no_table = std::numeric_limits<std::uint32_t>::max();
  static constexpr int unreached = -1;

  std::uint32_t table(VertexId source) {
    std::uint32_t& index = table_of_[source];
    if (index != no_table) return index;
    const std::uint64_t key = std::uint64_t{host_routes_.shape(source)} << 32 | host_routes_.position(source);
    const auto [it, inserted] = table_of_shape_.try_emplace(key, static_cast<std::uint32_t>(tables_.size()));
    index = it->second;
    if (!inserted) return index;
    const VertexId host = graph_.vertex(source).host;
    std::vector<int>& hops = tables_.emplace_back(graph_.devices_of(host).size() + 1, unreached);
    hops[host_routes_.position(source)] = 0;
    std::vector<VertexId> queue{source};
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const VertexId u = queue[head];
      const VertexKind kind = graph_.vertex(u).kind;
      if (u != source && (kind == VertexKind::gpu || kind == VertexKind::host)) continue;
      const int next = hops[host_routes_.position(u)] + 1;
      for (const LinkId l : graph_.links_of(u)) {
        const VertexId w = graph_.link(l).other_end(u);
        if (graph_.vertex(w).host == host && hops[host_routes_.position(w)] == unreached) {
          hops[host_routes_.position(w)] = next;
          queue.push_back(w);
        }
      }
    }
    return index;
  }

  const Graph& graph_;
  HostRoutes& host_routes_;
  std::vector<std::uint32_t> table_of_;  // source vertex -> index into tables_
  std::unordered_map<std::uint64_t, std::uint32_t> table_of_shape_;  // (shape, position) -> index
  std::vector<std::vector<int>> tables_;
};

// The NIC a rank's own point-to-point traffic leaves through: the fewest hops away, ranks sharing
// a switch with several NICs taking them in ordinal order (routing's nearest_nic rule); a rank
// placed on a NIC is its own.
class NearestNics {
 public:
  NearestNics(const Graph& graph, HostHops& host_hops) : graph_(graph), host_hops_(host_hops) {}

  VertexId of(VertexId rank) {
    if (graph_.vertex(rank).kind == VertexKind::nic) return rank;
    const VertexId host = graph_.vertex(rank).host;
    auto [it, inserted] = nics_by_host_.try_emplace(host);
    if (inserted) it->second = nics_of(graph_, host);
    std::vector<VertexId> nearest;
    int nearest_hops = std::numeric_limits<int>::max();
    for (const VertexId nic : it->second) {
      const std::optional<int> hops = host_hops_.between(nic, rank);
      if (!hops || *hops > nearest_hops) continue;
      if (*hops < nearest_hops) nearest.clear();
      nearest_hops = *hops;
      nearest.push_back(nic);
    }
    if (nearest.empty()) throw InputError(fmt::format("{} has no NIC to reach other nodes", graph_.vertex(rank).name));
    return nearest[static_cast<std::size_t>(std::max(graph_.vertex(rank).index, 0)) % nearest.size()];
  }

 private:
  const Graph& graph_;
  HostHops& host_hops_;
  std::unordered_map<VertexId, std::vector<VertexId>> nics_by_host_;
};

// How one rail crosses a node: data arrives through the NIC at `entry`, visits the node's other
// ranks and leaves from `exit`, which sends through `via` (itself, or the entry GPU over NVLink
// when no second rank sits as near the NIC: PXN).
struct RailCrossing {
  VertexId nic = no_vertex;
  VertexId entry = no_vertex;
  VertexId exit = no_vertex;
  VertexId via = no_vertex;
};

class RailPlanner {
 public:
  RailPlanner(const Graph& graph, HostHops& host_hops, std::span<const VertexId> local)
      : graph_(graph), host_hops_(host_hops), local_(local.begin(), local.end()) {}

  RailCrossing plan(VertexId nic) {
    std::vector<std::pair<int, VertexId>> by_distance;
    for (const VertexId rank : local_) {
      const std::optional<int> hops = host_hops_.between(nic, rank);
      if (!hops) throw InputError(fmt::format("{} cannot reach {}", graph_.vertex(rank).name, graph_.vertex(nic).name));
      by_distance.emplace_back(*hops, rank);
    }
    const auto pick = [&](std::map<VertexId, int>& uses, VertexId excluded) {
      VertexId best = no_vertex;
      std::tuple<int, int> best_key{std::numeric_limits<int>::max(), 0};
      for (const auto& [distance, rank] : by_distance) {
        if (rank == excluded) continue;
        const std::tuple<int, int> key{distance, uses[rank]};
        if (key < best_key) {
          best_key = key;
          best = rank;
        }
      }
      return std::pair{best, std::get<0>(best_key)};
    };
    RailCrossing crossing;
    crossing.nic = nic;
    const auto [entry, entry_distance] = pick(entry_uses_, no_vertex);
    crossing.entry = crossing.exit = crossing.via = entry;
    ++entry_uses_[entry];
    if (local_.size() > 1) {
      const auto [exit, exit_distance] = pick(exit_uses_, entry);
      crossing.exit = exit;
      crossing.via = exit_distance > entry_distance ? entry : exit;
      ++exit_uses_[exit];
    }
    return crossing;
  }

  // entry, the other ranks in rank order, exit.
  std::vector<VertexId> order(const RailCrossing& crossing) const {
    std::vector<VertexId> order{crossing.entry};
    for (const VertexId rank : local_) {
      if (rank != crossing.entry && rank != crossing.exit) order.push_back(rank);
    }
    if (crossing.exit != crossing.entry) order.push_back(crossing.exit);
    return order;
  }

 private:
  const Graph& graph_;
  HostHops& host_hops_;
  std::vector<VertexId> local_;
  std::map<VertexId, int> entry_uses_;
  std::map<VertexId, int> exit_uses_;
};

// The parent of node r (1 <= r < n) in an in-order binary tree over 0..n-1 rooted under node 0:
// r's lowest set bit b; the parent is r + b or r - b, whichever has bit 2b clear, climbing while
// it falls outside.
int in_order_parent(int r, int n) {
  int bit = r & -r;
  for (;;) {
    const int parent = (r & (2 * bit)) != 0 ? r - bit : r + bit;
    if (parent < n) return parent;
    if (2 * bit >= n) return 0;
    r = parent;
    bit *= 2;
  }
}

// One node's ranks in a ring, alone.
Flows::Solution solve_local_ring(FlowPaths& paths, std::span<const VertexId> local) {
  Flows flows(paths);
  for (std::size_t k = 0; k < local.size(); ++k) flows.add({&flows.local_path(local[k], local[(k + 1) % local.size()])});
  return flows.solve();
}

// NCCL's double binary tree: tree 1 in order over the nodes, tree 2 its mirror image; every edge
// carries half the data up (reduce) and down (broadcast) at once, on every rail.
Flows::Solution solve_trees(FlowPaths& paths, const std::vector<std::vector<RailCrossing>>& crossings, int nodes,
                            std::span<const CompetingJob> competing) {
  Flows trees(paths);
  for (int tree = 0; tree < 2; ++tree) {
    for (int node = 1; node < nodes; ++node) {
      const int child = tree == 0 ? node : nodes - 1 - node;
      const int parent = tree == 0 ? in_order_parent(node, nodes) : nodes - 1 - in_order_parent(node, nodes);
      for (const auto& rail : crossings) {
        const RailCrossing& c = rail[static_cast<std::size_t>(child)];
        const RailCrossing& p = rail[static_cast<std::size_t>(parent)];
        trees.add_fabric_hop(c.entry, c.entry, c.nic, p.nic, p.entry);
        trees.add_fabric_hop(p.entry, p.entry, p.nic, c.nic, c.entry);
      }
    }
  }
  trees.add_competing(competing);
  return trees.solve();
}

// alltoall's host pairs: every node to `peers` others (all of them, or evenly spaced ones
// standing for all), as pair(from, to) with positions in a list of `hosts` hosts.
template <typename PairFn>
void for_each_alltoall_pair(std::size_t hosts, std::size_t peers, PairFn pair) {
  for (std::size_t from = 0; from < hosts; ++from) {
    for (std::size_t k = 1; k <= peers; ++k) {
      const std::size_t offset = peers == hosts - 1 ? k : 1 + (k - 1) * (hosts - 1) / peers;
      pair(from, (from + offset) % hosts);
    }
  }
}

// The flows one host pair counts as where they meet other traffic. NCCL's p2p schedule sends to
// one peer at a time per channel, so a node's alltoall holds about as many connections open at
// once as a ring holds rails: a node's pairs together weigh its NIC count, as a ring node's rail
// flows do, and neither job's share of a link depends on how many peers the alltoall has.
double alltoall_pair_weight(const Graph& graph, std::span<const VertexId> hosts, std::size_t peers) {
  std::size_t nics = std::numeric_limits<std::size_t>::max();
  for (const VertexId host : hosts) nics = std::min(nics, nics_of(graph, host).size());
  return static_cast<double>(std::max<std::size_t>(nics, 1)) / static_cast<double>(peers);
}

// alltoall: every host pair's flow spread over both nodes' NICs.
Flows::Solution solve_alltoall(FlowPaths& paths, std::span<const VertexId> hosts, std::size_t peers, double weight,
                               std::span<const CompetingJob> competing) {
  Flows pairs(paths);
  std::vector<std::uint32_t> fabric_hosts;
  for (const VertexId host : hosts) fabric_hosts.push_back(paths.host_index(host));
  for_each_alltoall_pair(hosts.size(), peers, [&](std::size_t from, std::size_t to) {
    pairs.add_host_pair(fabric_hosts[from], fabric_hosts[to], weight);
  });
  pairs.add_competing(competing);
  return pairs.solve();
}

// Ranks grouped by host, hosts in order of their first rank.
std::vector<std::vector<VertexId>> ranks_by_host(const Graph& graph, std::span<const VertexId> ranks) {
  std::vector<std::vector<VertexId>> local_ranks;
  std::map<VertexId, std::size_t> slot_of_host;
  for (const VertexId rank : ranks) {
    const auto [it, inserted] = slot_of_host.try_emplace(graph.vertex(rank).host, local_ranks.size());
    if (inserted) local_ranks.emplace_back();
    local_ranks[it->second].push_back(rank);
  }
  return local_ranks;
}

// Every rail's crossing of every node, [rail][node]: one rail per NIC of the node with fewest.
std::vector<std::vector<RailCrossing>> plan_rails(const Graph& graph, HostRoutes& host_routes, HostHops& host_hops,
                                                  const std::vector<std::vector<VertexId>>& local_ranks,
                                                  std::vector<RailPlanner>& planners) {
  std::size_t rails = std::numeric_limits<std::size_t>::max();
  std::vector<std::vector<VertexId>> node_nics;
  for (const auto& local : local_ranks) {
    node_nics.push_back(nics_of(graph, graph.vertex(local.front()).host));
    rails = std::min(rails, node_nics.back().size());
  }
  if (rails == 0) throw InputError("a multi-node placement needs a NIC on every node");
  for (const auto& local : local_ranks) planners.emplace_back(graph, host_hops, local);
  // Nodes of one host shape with their ranks and rails' NICs at the same positions cross alike:
  // the first such node plans, the others take its crossings by position.
  std::map<std::vector<std::uint32_t>, std::size_t> first_alike;
  std::vector<std::size_t> planned_by;  // per node: the node whose plans it takes
  for (std::size_t node = 0; node < local_ranks.size(); ++node) {
    std::vector<std::uint32_t> key{host_routes.shape(local_ranks[node].front())};
    for (const VertexId rank : local_ranks[node]) key.push_back(host_routes.position(rank));
    key.push_back(no_vertex);
    for (std::size_t r = 0; r < rails; ++r) key.push_back(host_routes.position(node_nics[node][r]));
    planned_by.push_back(first_alike.try_emplace(std::move(key), node).first->second);
  }
  const auto at_position_of = [&](VertexId vertex, VertexId host) {
    const std::uint32_t position = host_routes.position(vertex);
    return position == 0 ? host : graph.devices_of(host)[position - 1];
  };
  std::vector<std::vector<RailCrossing>> crossings(rails);
  for (std::size_t r = 0; r < rails; ++r) {
    auto& rail = crossings[r];
    for (std::size_t node = 0; node < local_ranks.size(); ++node) {
      const VertexId nic = node_nics[node][r];
      if (planned_by[node] == node) {
        rail.push_back(planners[node].plan(nic));
        continue;
      }
      const RailCrossing& alike = rail[planned_by[node]];
      const VertexId host = graph.vertex(nic).host;
      rail.push_back({nic, at_position_of(alike.entry, host), at_position_of(alike.exit, host),
                      at_position_of(alike.via, host)});
    }
  }
  return crossings;
}

// The model knows no traffic inside a host but its own job's.
void require_hosts_of_their_own(const Graph& graph, std::span<const SharingJob> jobs,
                                const std::vector<std::vector<VertexId>>& own_ranks) {
  std::set<VertexId> own_hosts;
  for (const auto& local : own_ranks) own_hosts.insert(graph.vertex(local.front()).host);
  for (const SharingJob& job : jobs) {
    for (const VertexId rank : job.ranks) {
      const VertexId host = graph.vertex(rank).host;
      if (own_hosts.contains(host)) {
        throw InputError(fmt::format("{} has ranks on {}, a host of the predicted job: jobs never share a host", job.name,
                                     graph.vertex(host).name));
      }
    }
  }
}

// The other jobs' fabric flows in the pattern each offers, and a line per job saying so.
std::vector<CompetingJob> plan_competing(const Graph& graph, HostRoutes& host_routes, HostHops& host_hops,
                                         std::span<const SharingJob> jobs, NearestNics& nearest_nics,
                                         std::vector<std::string>& lines) {
  std::vector<CompetingJob> planned;
  for (const SharingJob& job : jobs) {
    CompetingJob& competing = planned.emplace_back();
    competing.name = job.name;
    const std::vector<std::vector<VertexId>> local_ranks = ranks_by_host(graph, job.ranks);
    std::string sampled;
    if (local_ranks.size() > 1) {
      switch (job.pattern) {
        case SharingPattern::rings: {
          std::vector<RailPlanner> planners;
          for (const auto& rail : plan_rails(graph, host_routes, host_hops, local_ranks, planners)) {
            for (std::size_t node = 0; node < rail.size(); ++node) {
              const RailCrossing& out = rail[node];
              const RailCrossing& in = rail[(node + 1) % rail.size()];
              competing.hops.push_back({out.exit, out.via, out.nic, in.nic, in.entry});
            }
          }
          break;
        }
        case SharingPattern::all_pairs: {
          std::vector<VertexId> hosts;
          for (const auto& local : local_ranks) hosts.push_back(graph.vertex(local.front()).host);
          const std::size_t peers = std::min<std::size_t>(hosts.size() - 1, alltoall_sampled_peers);
          for_each_alltoall_pair(hosts.size(), peers, [&](std::size_t from, std::size_t to) {
            competing.host_pairs.emplace_back(hosts[from], hosts[to]);
          });
          competing.pair_weight = alltoall_pair_weight(graph, hosts, peers);
          if (peers < hosts.size() - 1) sampled = fmt::format(", each node's to {} evenly spaced peers standing for all", peers);
          break;
        }
        case SharingPattern::neighbours:
          for (std::size_t i = 0; i < job.ranks.size(); ++i) {
            const VertexId from = job.ranks[i];
            const VertexId to = job.ranks[(i + 1) % job.ranks.size()];
            if (graph.vertex(from).host != graph.vertex(to).host) {
              competing.hops.push_back({from, from, nearest_nics.of(from), nearest_nics.of(to), to});
            }
          }
          break;
      }
    }
    const std::size_t flows = competing.hops.size() + competing.host_pairs.size();
    lines.push_back(flows == 0 ? fmt::format("{}: one node, nothing on the fabric", job.name)
                               : fmt::format("{}: its {} over {} nodes ({} fabric flows{}) runs throughout", job.name,
                                             name_of(job.pattern), local_ranks.size(), flows, sampled));
  }
  return planned;
}

std::string solved_limit(const Flows::Solution& solution) {
  return solution.limit.empty() ? std::string("no shared link fills") : solution.limit;
}

}  // namespace

std::string_view name_of(SharingPattern pattern) {
  switch (pattern) {
    case SharingPattern::rings: return "ring rails";
    case SharingPattern::all_pairs: return "all-pairs exchange";
    case SharingPattern::neighbours: return "neighbour exchange";
  }
  return "unknown";
}

std::optional<SharingPattern> sharing_pattern_of(const OpTraits& op) {
  switch (op.modelled_as) {
    case ModelledCollective::alltoall: return SharingPattern::all_pairs;
    case ModelledCollective::sendrecv: return SharingPattern::neighbours;
    case ModelledCollective::gather:
    case ModelledCollective::scatter: return std::nullopt;
    case ModelledCollective::none:
    case ModelledCollective::all_reduce:
    case ModelledCollective::all_gather:
    case ModelledCollective::reduce_scatter:
    case ModelledCollective::broadcast:
    case ModelledCollective::reduce: break;
  }
  return SharingPattern::rings;
}

std::vector<std::vector<VertexId>> place_jobs(const Graph& graph, std::span<const JobPlacement> jobs) {
  const auto gpus_of = [&](VertexId host) {
    std::vector<VertexId> gpus;
    for (const VertexId device : graph.devices_of(host)) {
      if (graph.vertex(device).kind == VertexKind::gpu) gpus.push_back(device);
    }
    std::sort(gpus.begin(), gpus.end(), [&](VertexId a, VertexId b) { return graph.vertex(a).index < graph.vertex(b).index; });
    return gpus;
  };
  const auto whose = [&](std::size_t job) { return jobs.size() > 1 ? fmt::format(" job {}", job + 1) : std::string(); };
  const auto asked = [&](std::size_t job) { return jobs.size() > 1 ? whose(job) + " asks for" : std::string(" asked for"); };
  std::vector<std::vector<VertexId>> job_hosts(jobs.size());
  std::map<VertexId, std::size_t> owner;  // host -> the job on it
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (jobs[j].placement.kind != Placement::Kind::hosts) continue;
    for (const std::string& name : jobs[j].placement.hosts) {
      const VertexId host = graph.find(name);
      if (host == no_vertex || graph.vertex(host).kind != VertexKind::host) {
        throw InputError(fmt::format("placement: host {} is not in the topology", name));
      }
      if (gpus_of(host).empty()) throw InputError(fmt::format("placement: host {} has no GPU", name));
      const auto [it, inserted] = owner.try_emplace(host, j);
      if (!inserted) {
        throw InputError(it->second == j ? fmt::format("placement: host {} is named twice{}", name, whose(j).empty() ? "" : " by" + whose(j))
                                         : fmt::format("placement: host {} is named by job {} and job {}: jobs never share a host",
                                                       name, it->second + 1, j + 1));
      }
      job_hosts[j].push_back(host);
    }
    if (jobs[j].nodes > 0 && jobs[j].nodes != static_cast<int>(job_hosts[j].size())) {
      throw InputError(fmt::format("placement{} names {} hosts, --nodes asks for {}", whose(j), job_hosts[j].size(),
                                   jobs[j].nodes));
    }
  }
  std::vector<VertexId> with_gpus;
  for (VertexId host = 0; host < graph.vertex_count(); ++host) {
    if (graph.vertex(host).kind == VertexKind::host && !gpus_of(host).empty()) with_gpus.push_back(host);
  }
  // Jobs of a stated size first, in order; jobs of 0 nodes take what they leave.
  for (const bool sized : {true, false}) {
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      if (jobs[j].placement.kind == Placement::Kind::hosts || (jobs[j].nodes > 0) != sized) continue;
      std::vector<VertexId> free;
      for (const VertexId host : with_gpus) {
        if (!owner.contains(host)) free.push_back(host);
      }
      const std::size_t wanted = sized ? static_cast<std::size_t>(jobs[j].nodes) : free.size();
      if (wanted == 0 && !owner.empty()) {
        throw InputError(fmt::format("the other jobs take all {} hosts with GPUs: none left for{}", with_gpus.size(), whose(j)));
      }
      if (wanted > free.size()) {
        throw InputError(owner.empty() ? fmt::format("the topology has {} hosts with GPUs, fewer than the {} nodes{}",
                                                     with_gpus.size(), wanted, asked(j))
                                       : fmt::format("the topology has {} hosts with GPUs, {} taken by other jobs: too "
                                                     "few for the {} nodes{}", with_gpus.size(), owner.size(), wanted, asked(j)));
      }
      for (std::size_t k = 0; k < wanted; ++k) {
        const VertexId host = free[jobs[j].placement.kind == Placement::Kind::spread ? k * free.size() / wanted : k];
        owner.emplace(host, j);
        job_hosts[j].push_back(host);
      }
    }
  }
  std::vector<std::vector<VertexId>> job_ranks(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    for (const VertexId host : job_hosts[j]) {
      const std::vector<VertexId> gpus = gpus_of(host);
      if (jobs[j].gpus_per_node > static_cast<int>(gpus.size())) {
        throw InputError(fmt::format("host {} has {} GPUs, fewer than the {} per node{}", graph.vertex(host).name,
                                     gpus.size(), jobs[j].gpus_per_node, asked(j)));
      }
      const std::size_t take = jobs[j].gpus_per_node > 0 ? static_cast<std::size_t>(jobs[j].gpus_per_node) : gpus.size();
      job_ranks[j].insert(job_ranks[j].end(), gpus.begin(), gpus.begin() + static_cast<std::ptrdiff_t>(take));
    }
  }
  return job_ranks;
}

std::vector<VertexId> place_ranks(const Graph& graph, int nodes, int gpus_per_node, const Placement& placement) {
  const JobPlacement job{nodes, gpus_per_node, placement};
  return std::move(place_jobs(graph, std::span(&job, 1)).front());
}

CollectiveModel model_collectives(const Graph& graph, std::span<const VertexId> rank_vertices, const ModelOptions& options) {
  if (rank_vertices.size() < 2) {
    throw InputError(fmt::format("a collective model needs at least 2 ranks, got {}", rank_vertices.size()));
  }
  const std::vector<std::vector<VertexId>> local_ranks = ranks_by_host(graph, rank_vertices);
  CollectiveModel model;
  model.ranks = static_cast<int>(rank_vertices.size());
  model.nodes = static_cast<int>(local_ranks.size());
  model.in_network_reduction = options.in_network_reduction && model.nodes > 1;
  if (options.gpus_per_process < 1) {
    throw InputError(fmt::format("a process drives at least 1 GPU, got {} GPUs per process", options.gpus_per_process));
  }
  model.gpus_per_process = options.gpus_per_process;
  for (const auto& local : local_ranks) {
    model.ranks_per_node = std::max(model.ranks_per_node, static_cast<int>(local.size()));
    if (local.size() % static_cast<std::size_t>(model.gpus_per_process) != 0) {
      throw InputError(fmt::format("{} GPUs per process do not divide the {} ranks on {}", model.gpus_per_process,
                                   local.size(), graph.vertex(graph.vertex(local.front()).host).name));
    }
  }
  model.gpu_ranks = std::all_of(rank_vertices.begin(), rank_vertices.end(),
                                [&](VertexId v) { return graph.vertex(v).kind == VertexKind::gpu; });

  // GPU generation and NVLink reach from the ranks' NVLinks.
  model.nvlink_intra = model.gpu_ranks && model.ranks_per_node > 1;
  model.nvswitch = model.gpu_ranks;
  model.gpu_nvlink_gbps = std::numeric_limits<double>::max();
  int nvlink_lanes = std::numeric_limits<int>::max();
  for (const VertexId rank : rank_vertices) {
    double nvlink_gbps = 0;
    int lanes = 0;
    bool to_switch = false;
    for (const LinkId l : graph.links_of(rank)) {
      const Link& link = graph.link(l);
      // The model is NCCL's (its algorithms, protocols and tuning per NVLink generation); RCCL
      // over xGMI would be predicted with NCCL's figures, so it is refused rather than guessed.
      if (link.spec.type == LinkType::xgmi) {
        throw InputError(fmt::format("{} is joined to its peers by xGMI: the collective model covers NCCL over NVLink, "
                                     "not RCCL over xGMI",
                                     graph.vertex(rank).name));
      }
      if (link.spec.type != LinkType::nvlink) continue;
      nvlink_gbps += link.spec.capacity_gbps;
      lanes += link.spec.lane_count;
      to_switch = to_switch || graph.vertex(link.other_end(rank)).kind == VertexKind::nvswitch;
      if (const auto cc = compute_capability_of(link.spec.technology)) model.compute_capability = *cc;
    }
    model.gpu_nvlink_gbps = std::min(model.gpu_nvlink_gbps, nvlink_gbps);
    nvlink_lanes = std::min(nvlink_lanes, lanes);
    model.nvswitch = model.nvswitch && to_switch;
    if (nvlink_gbps == 0) model.nvlink_intra = false;
  }
  if (model.gpu_ranks && model.compute_capability == 0) {
    model.compute_capability = 80;
    model.assumptions.push_back("the GPUs have no NVLink that names their generation: NCCL's Ampere (sm_80) "
                                "tuning figures assumed");
  }

  std::optional<FabricHierarchy> fabric;
  if (model.nodes > 1) fabric.emplace(graph);
  HostRoutes host_routes(graph);
  HostHops host_hops(graph, host_routes);
  NearestNics nearest_nics(graph, host_hops);
  FlowPaths paths(graph, fabric, host_routes);
  // A job on one node meets the other jobs on no link: they have hosts of their own.
  require_hosts_of_their_own(graph, options.sharing_jobs, local_ranks);
  std::vector<CompetingJob> competing;
  if (model.nodes > 1) {
    competing = plan_competing(graph, host_routes, host_hops, options.sharing_jobs, nearest_nics, model.sharing);
  } else {
    for (const SharingJob& job : options.sharing_jobs) {
      model.sharing.push_back(fmt::format("{}: shares no link with a job on one node", job.name));
    }
  }

  // Every rail's crossing of every node, planned once for the ring and the network alone.
  std::vector<std::vector<RailCrossing>> crossings;  // [rail][node]
  if (model.nodes > 1) {
    std::vector<RailPlanner> planners;
    crossings = plan_rails(graph, host_routes, host_hops, local_ranks, planners);
    model.rails = static_cast<int>(crossings.size());
    // A rail-optimized fabric: traffic between rails takes NCCL's default path through PXN.
    bool rails_on_several_switches = false;
    for (std::size_t node = 0; node < local_ranks.size() && !rails_on_several_switches; ++node) {
      for (const auto& rail : crossings) {
        rails_on_several_switches = rails_on_several_switches ||
                                    fabric->access_switch(rail[node].nic) != fabric->access_switch(crossings.front()[node].nic);
      }
    }
    if (rails_on_several_switches) {
      model.assumptions.push_back(
          "a node's NICs sit on several leaves (rail-optimized): traffic between rails goes through PXN "
          "(NCCL_P2P_PXN_LEVEL=2, NCCL's default), over NVLink to the GPU on the receiver's rail and out on that "
          "rail, not from one rail's leaf to another's through the spines");
    }
    // The ring: all rails at once, each through the node's ranks from its entry to its exit.
    Flows flows(paths);
    for (const auto& rail : crossings) {
      for (std::size_t node = 0; node < rail.size(); ++node) {
        const std::vector<VertexId> order = planners[node].order(rail[node]);
        for (std::size_t k = 0; k + 1 < order.size(); ++k) flows.add({&flows.local_path(order[k], order[k + 1])});
        const RailCrossing& out = rail[node];
        const RailCrossing& in = rail[(node + 1) % rail.size()];
        model.net_latency_us = std::max(model.net_latency_us, flows.add_fabric_hop(out.exit, out.via, out.nic, in.nic, in.entry));
      }
    }
    flows.add_competing(competing);
    const Flows::Solution solution = flows.solve();
    model.ring_gbps = model.rails * solution.slowest_gbps;
    model.ring_limit = solved_limit(solution);
  } else {
    const Flows::Solution solution = solve_local_ring(paths, local_ranks.front());
    model.ring_gbps = solution.slowest_gbps;
    model.ring_limit = solved_limit(solution);
  }

  // One node's ring alone: the intra-node stage of trees, NVLS-tree and CollNet.
  if (model.nodes > 1 && model.ranks_per_node > 1) {
    const auto& local = *std::max_element(local_ranks.begin(), local_ranks.end(),
                                          [](const auto& a, const auto& b) { return a.size() < b.size(); });
    const Flows::Solution solution = solve_local_ring(paths, local);
    model.intra_gbps = solution.slowest_gbps;
    model.intra_limit = solved_limit(solution);
  } else if (model.nodes == 1) {
    model.intra_gbps = model.ring_gbps;
    model.intra_limit = model.ring_limit;
  } else {
    model.intra_gbps = std::numeric_limits<double>::infinity();
  }

  // The network alone: every rail's crossing, GPU to GPU, at once.
  if (model.nodes > 1) {
    Flows flows(paths);
    for (const auto& rail : crossings) {
      for (std::size_t node = 0; node < rail.size(); ++node) {
        const RailCrossing& out = rail[node];
        const RailCrossing& in = rail[(node + 1) % rail.size()];
        flows.add_fabric_hop(out.exit, out.via, out.nic, in.nic, in.entry);
      }
    }
    flows.add_competing(competing);
    const Flows::Solution solution = flows.solve();
    model.net_gbps = model.rails * solution.slowest_gbps;
    model.net_limit = solved_limit(solution);

    const Flows::Solution tree_solution = solve_trees(paths, crossings, model.nodes, competing);
    // Each flow moves S / (2 rails): busbw = 2(p-1)/p x S / T = 4 (p-1)/p x rails x rate.
    const double p = model.ranks;
    model.tree_net_gbps = 4 * (p - 1) / p * model.rails * tree_solution.slowest_gbps;
    model.tree_limit = solved_limit(tree_solution);

    // Each rank's own path to its nearest NIC, alone (alltoall pushes every GPU's remote share
    // through it).
    model.gpu_nic_gbps = std::numeric_limits<double>::max();
    for (const VertexId rank : rank_vertices) {
      const VertexId nic = nearest_nics.of(rank);
      if (nic != rank) model.gpu_nic_gbps = std::min(model.gpu_nic_gbps, host_routes.between(rank, nic)->bottleneck_gbps);
    }

    // alltoall; beyond a few hundred nodes, flows to evenly spaced peers stand for all (the
    // fabric's groups share them alike).
    std::vector<VertexId> hosts;
    for (const auto& local : local_ranks) hosts.push_back(graph.vertex(local.front()).host);
    const std::size_t peers = std::min<std::size_t>(hosts.size() - 1, alltoall_sampled_peers);
    if (peers < hosts.size() - 1) {
      model.alltoall_assumption = fmt::format("alltoall: each node's flows to {} evenly spaced peers stand for its "
                                              "flows to all {}", peers, hosts.size() - 1);
    }
    const double weight = alltoall_pair_weight(graph, hosts, peers);
    const Flows::Solution pair_solution = solve_alltoall(paths, hosts, peers, weight, competing);
    model.alltoall_node_gbps = pair_solution.slowest_gbps * weight * static_cast<double>(peers);
    model.alltoall_limit = solved_limit(pair_solution);
  }

  // sendrecv: rank i to rank i + 1; between nodes the receiver's nearest NIC takes it in. PXN
  // (NCCL_P2P_PXN_LEVEL=2, the default): over NVLink the sender hands its data to the local rank
  // nearest its own NIC of the receiver's rail (the same ordinal), so that a rail-optimized fabric
  // keeps it on one rail; otherwise it leaves through its own nearest NIC.
  {
    Flows flows(paths);
    std::map<VertexId, std::size_t> slot_of_host;
    for (std::size_t n = 0; n < local_ranks.size(); ++n) slot_of_host.emplace(graph.vertex(local_ranks[n].front()).host, n);
    for (std::size_t i = 0; i < rank_vertices.size(); ++i) {
      const VertexId from = rank_vertices[i];
      const VertexId to = rank_vertices[(i + 1) % rank_vertices.size()];
      const VertexId from_host = graph.vertex(from).host;
      if (from_host == graph.vertex(to).host) {
        flows.add({&flows.local_path(from, to)});
        continue;
      }
      const VertexId to_nic = nearest_nics.of(to);
      VertexId via = from;
      VertexId from_nic = nearest_nics.of(from);
      if (model.nvlink_intra) {
        const std::vector<VertexId> far_nics = nics_of(graph, graph.vertex(to).host);
        const std::vector<VertexId> own_nics = nics_of(graph, from_host);
        const auto rail = static_cast<std::size_t>(std::find(far_nics.begin(), far_nics.end(), to_nic) - far_nics.begin());
        for (const VertexId proxy : local_ranks[slot_of_host.at(from_host)]) {
          if (rail < own_nics.size() && own_nics[rail] != from_nic && nearest_nics.of(proxy) == own_nics[rail]) {
            via = proxy;
            from_nic = own_nics[rail];
            break;
          }
        }
      }
      flows.add_fabric_hop(from, via, from_nic, to_nic, to);
    }
    flows.add_competing(competing);
    const Flows::Solution solution = flows.solve();
    model.sendrecv_gbps = solution.slowest_gbps;
    model.sendrecv_limit = solved_limit(solution);
  }

  if (model.nodes > 1) {
    model.channels = std::min(32, 2 * model.rails);
  } else if (model.nvlink_intra) {
    model.channels = std::clamp(2 * nvlink_lanes, 2, 32);
  } else {
    model.channels = 2;
  }
  return model;
}

}  // namespace fb::topo
