#pragma once
// The fabric layer's flows (collective_model.hpp describes both layers): the pieces of path a model's
// solves share (FlowPaths) and the flows of one solve over them (Flows), solved max-min fair.
// Internal to the collective model: collective_fabric.cpp and the rail and pattern planners use it.

#include "topology/fabric_hierarchy.hpp"
#include "topology/flow_model.hpp"
#include "topology/graph.hpp"
#include "topology/host_routes.hpp"
#include "topology/huge_pages.hpp"
#include "topology/pod_array.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fb::topo::detail {

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
  FlowPaths(const Graph& graph, std::optional<FabricHierarchy>& fabric, HostRoutes& host_routes);

  struct LocalPath {
    std::uint32_t piece = 0;
    double latency_us = 0;
  };

  LocalPath local_path(VertexId from, VertexId to);

  // What a fabric hop asks about each of its NICs, in one record per NIC: six million hops at a
  // million GPUs looked each of these up in a table of its own, a cache miss each. Every field is
  // filled the first time it is asked for (a NIC on a host without fabric links refuses only
  // when its host index is).
  struct NicEntry {
    std::uint32_t host = no_piece;           // index in the fabric
    VertexId access_switch = no_vertex;      // FabricHierarchy::access_switch
    std::uint32_t switch_climbs = no_piece;  // the access switch's climbs: index into switch_climbs_
    std::uint32_t port_out = no_piece;       // the NIC's ports, outbound and inbound pieces
    std::uint32_t port_in = no_piece;
    bool switch_known = false;
    double latency_to_leaves_us = -1;  // its host's, for hops entering at its switch
  };

  // The NIC's own port(s) to the fabric, one direction: a rail's share that pooling would hide.
  std::uint32_t port(VertexId nic, bool outbound) {
    NicEntry& entry = nic_entry(nic);
    if (entry.port_out == no_piece) know_switch_and_ports(nic, entry);
    return outbound ? entry.port_out : entry.port_in;
  }

  // A host's way up (or down) the fabric to the level where it meets the other end, and the
  // latency of that climb.
  struct FabricClimb {
    std::uint32_t piece = no_piece;
    double latency_us = 0;
  };
  FabricClimb fabric_climb(std::uint32_t host, int level, bool downwards) {
    const std::uint32_t piece = fabric_climb_piece(host, level, downwards);
    double& latency_us = climb_latency_us_[climb_slot(host, level, downwards)];
    if (latency_us < 0) latency_us = fabric_->latency_to_level_us(host, level);
    return {piece, latency_us};
  }
  // The climb's piece alone: alltoall's 16 million host pairs at a million GPUs never ask its
  // latency, which cost a walk of the host's links and the chain above for each of 500,000 climbs.
  std::uint32_t fabric_climb_piece(std::uint32_t host, int level, bool downwards) {
    if (climb_pieces_.empty()) {
      assign_huge(climb_pieces_, climb_slots * fabric_->hosts().size(), no_piece);
      assign_huge(climb_latency_us_, climb_pieces_.size(), -1.0);
    }
    const std::size_t slot = climb_slot(host, level, downwards);
    if (climb_pieces_[slot] == no_piece) add_fabric_climb(host, level, downwards);
    return climb_pieces_[slot];
  }

  // The way up (or down) from the switch a NIC with ports of its own enters the fabric at, and
  // the latency of that climb from the switch.
  FabricClimb switch_climb(VertexId nic, int level, bool downwards) {
    NicEntry& entry = nic_entry(nic);
    if (entry.switch_climbs == no_piece) entry.switch_climbs = switch_climbs_of(access_switch(nic));
    FabricClimb& climb =
        switch_climbs_[entry.switch_climbs + 2 * static_cast<std::size_t>(level) + (downwards ? 1 : 0)];
    if (climb.piece == no_piece) climb = add_switch_climb(entry.access_switch, level, downwards);
    return climb;
  }

  // The one switch the NIC's own fabric ports go to (FabricHierarchy::access_switch), looked up
  // once per NIC: every hop through it asks.
  VertexId access_switch(VertexId nic) {
    NicEntry& entry = nic_entry(nic);
    if (!entry.switch_known) know_switch_and_ports(nic, entry);
    return entry.access_switch;
  }

  // The index in the fabric of the NIC's host.
  std::uint32_t nic_host(VertexId nic) {
    NicEntry& entry = nic_entry(nic);
    if (entry.host == no_piece) entry.host = host_index(graph_.vertex(nic).host);
    return entry.host;
  }

  // The latency from the NIC's host up to its leaves, for hops that enter the fabric at a NIC's switch.
  double latency_to_leaves_us(VertexId nic) {
    NicEntry& entry = nic_entry(nic);
    if (entry.latency_to_leaves_us < 0) {
      const std::uint32_t host = nic_host(nic);
      if (host_latency_to_leaves_us_.empty()) host_latency_to_leaves_us_.resize(fabric_->hosts().size(), -1);
      double& latency_us = host_latency_to_leaves_us_[host];
      if (latency_us < 0) latency_us = fabric_->latency_to_level_us(host, 1);
      entry.latency_to_leaves_us = latency_us;
    }
    return entry.latency_to_leaves_us;
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

  std::uint32_t host_index(VertexId host) const;

  const Graph& graph() const { return graph_; }
  std::span<const double> capacity_gbps() const { return capacity_gbps_; }
  // The pieces so far, for a solve (valid until the next piece is added).
  PieceFlows pieces() const { return PieceFlows{shares_, {}, {}, {}, {}, 1, ranges_}; }
  // The one solver of the model's solves: its state over millions of resources is kept between them.
  PieceSolver& solver() { return solver_; }

  std::string describe(std::uint32_t resource) const;

 private:
  static constexpr std::uint32_t no_piece = std::numeric_limits<std::uint32_t>::max();

  static constexpr std::size_t climb_slots = 2 * (static_cast<std::size_t>(SwitchTier::core) + 1);
  // By level and direction, then host: the hosts an alltoall's flows reach at random stay
  // within a few cache lines of their neighbours.
  std::size_t climb_slot(std::uint32_t host, int level, bool downwards) const {
    return (2 * static_cast<std::size_t>(level) + (downwards ? 1 : 0)) * fabric_->hosts().size() + host;
  }
  void add_fabric_climb(std::uint32_t host, int level, bool downwards);
  // The NIC's access switch and its port pieces, both directions, from one walk of its links
  // (the first walk of a NIC's links misses the cache: once per NIC, not twice).
  void know_switch_and_ports(VertexId nic, NicEntry& entry);
  FabricClimb add_switch_climb(VertexId entry, int level, bool downwards);
  // The first of the switch's climb_slots entries in switch_climbs_, made on first use.
  std::uint32_t switch_climbs_of(VertexId entry);
  NicEntry& nic_entry(VertexId nic) {
    if (nic_slot_.empty()) assign_huge(nic_slot_, graph_.vertex_count(), no_piece);
    std::uint32_t& slot = nic_slot_[nic];
    if (slot == no_piece) {
      slot = static_cast<std::uint32_t>(nic_entries_.size());
      nic_entries_.emplace_back();
    }
    return nic_entries_[slot];
  }

  // Closes the piece whose shares were just appended.
  std::uint32_t end_piece() {
    const auto end = static_cast<std::uint32_t>(shares_.size());
    ranges_.push_back({open_share_, end});
    open_share_ = end;
    return static_cast<std::uint32_t>(ranges_.size() - 1);
  }
  // The shares of a path inside a host: those of the same path in the first host of its shape,
  // moved, where the route is theirs moved by one offset (hosts built alike), else its own.
  std::uint32_t append_or_move_route(VertexId from, VertexId to, const Route& route);
  // The path from `from` to `to` as its template's shares moved, where both hosts' links are
  // their shape's first host's moved alike (no route needs translating); none otherwise.
  std::optional<LocalPath> moved_template(VertexId from, VertexId to);

  const Graph& graph_;
  std::optional<FabricHierarchy>& fabric_;
  HostRoutes& host_routes_;
  std::vector<double> capacity_gbps_;
  // Tens of millions of values at a million GPUs: arrays that grow in place (pod_array.hpp).
  PodArray<ResourceShare> shares_;  // the pieces' own resources, piece after piece
  PodArray<PieceRange> ranges_;     // piece p's resources: its own or another's, moved
  std::uint32_t open_share_ = 0;    // the first share of the piece being appended
  // By host shape and the two ends' positions in it (HostRoutes::Placement): the first such
  // path, whose shares the same path in other hosts of that shape reads moved.
  struct LocalTemplate {
    std::uint32_t piece = no_piece;
    double latency_us = 0;
    HostRoutes::Placement placement;  // of the template's own ends
  };
  std::unordered_map<std::uint64_t, LocalTemplate> local_templates_;
  // Paths by where they start, each with its destination: a vertex's paths are a chain through
  // one array, from the last one known (millions of paths were a list of indices into a deque,
  // two cache misses more; then a vector per vertex, two million allocations at a million GPUs).
  struct KnownPath {
    VertexId to = no_vertex;
    std::uint32_t piece = 0;
    double latency_us = 0;
    std::uint32_t next = no_piece;  // the vertex's path known before this one
  };
  std::vector<std::uint32_t> last_known_path_;  // by vertex: into known_paths_, or no_piece
  PodArray<KnownPath> known_paths_;
  // Sized once when first used: by vertex, the NIC's record in nic_entries_; by fabric host,
  // level and direction, the host's climbs.
  std::vector<std::uint32_t> nic_slot_;
  std::vector<NicEntry> nic_entries_;
  std::vector<double> host_latency_to_leaves_us_;  // by fabric host, -1 until asked
  std::vector<std::uint32_t> climb_pieces_;        // by climb_slot
  std::vector<double> climb_latency_us_;           // by climb_slot, -1 until asked
  // Hosts by how they are cabled (the far ends of their fabric links, in order), looked up once
  // per host; by cabling, level and direction, the first host that climbed so.
  std::vector<std::uint32_t> cabling_of_host_;
  std::map<std::vector<VertexId>, std::uint32_t> cablings_;
  std::vector<std::uint32_t> first_climber_;
  std::vector<ResourceShare> climb_profile_;  // a first climber's profile, refilled for each
  // By entry switch: its first entry in switch_climbs_ (climb_slots of them, by level and direction).
  std::vector<std::uint32_t> switch_climbs_slot_;
  std::vector<FabricClimb> switch_climbs_;
  PieceSolver solver_;  // over capacity_gbps_, declared before it
};

// The flows of one solve, over a model's shared paths.
class Flows {
 public:
  explicit Flows(FlowPaths& paths) : paths_(paths) { first_use_.push_back(0); }

  using LocalPath = FlowPaths::LocalPath;
  LocalPath local_path(VertexId from, VertexId to) { return paths_.local_path(from, to); }

  // Room for `flows` more flows crossing `uses` pieces in all, where a caller knows how many: a
  // million GPUs' alltoall adds 16 million flows, which grown by doubling were copied and faulted
  // in again at every step.
  void reserve(std::size_t flows, std::size_t uses) {
    piece_of_use_.reserve(piece_of_use_.size() + uses);
    first_use_.reserve(first_use_.size() + flows);
    if (!weight_.empty()) weight_.reserve(weight_.size() + flows);
  }

  // One flow through these paths; returns its latency.
  double add(std::initializer_list<LocalPath> paths);

  // A flow between GPUs (or CPUs) of two hosts: out to `from_nic` (through `via`, a GPU near it,
  // when PXN forwards over NVLink), the NIC port, the fabric, the far NIC port, in to `to`. NICs
  // with ports of their own enter the fabric at their switch (a rail leaf reaches another rail's
  // leaf only through the spines); NICs the fabric knows only through their host's links enter
  // through the host's.
  double add_fabric_hop(VertexId from, VertexId via, VertexId from_nic, VertexId to_nic, VertexId to);

  // A copy of another solve's flow over the same paths: the network alone sends the ring's
  // fabric hops again, a million of them at a million GPUs, without routing them again.
  void add_copy(const Flows& other, std::size_t flow) {
    const std::uint32_t begin = other.first_use_[flow];
    const std::uint32_t end = other.first_use_[flow + 1];
    piece_of_use_.append(other.piece_of_use_.begin() + begin, other.piece_of_use_.begin() + end);
    end_flow(other.weight_of(flow));
  }

  // Flows so far (a caller's index for add_copy).
  [[nodiscard]] std::size_t size() const { return first_use_.size() - 1; }

  // `weight` host-to-host flows that spread over all of both hosts' NICs (alltoall through PXN);
  // hosts by index in the fabric (FlowPaths::host_index).
  void add_host_pair(std::uint32_t from, std::uint32_t to, double weight);

  // Other jobs' flows, added after this job's: they take their fair share of every resource,
  // and solve() answers for this job's flows alone.
  void add_competing(std::span<const CompetingJob> jobs);

  struct Solution {
    double slowest_gbps = 0;
    std::string limit;  // a full resource on the slowest flow's path
  };

  // The slowest of this job's flows, its rate and its bottleneck: a full resource on its path
  // where no flow runs faster than it (max-min fairness: the one that stopped it).
  [[nodiscard]] Solution solve() const;

 private:
  void end_flow(double weight) {
    first_use_.push_back(static_cast<std::uint32_t>(piece_of_use_.size()));
    if (!weight_.empty()) {
      weight_.push_back(weight);
    } else if (size() == 1) {
      common_weight_ = weight;
    } else if (weight != common_weight_) {
      spell_out_weights(weight);
    }
  }
  // The first flow whose weight differs from the others': each flow's weight from then on.
  void spell_out_weights(double weight);
  [[nodiscard]] double weight_of(std::size_t flow) const { return weight_.empty() ? common_weight_ : weight_[flow]; }

  [[nodiscard]] PieceFlows piece_flows() const;

  [[nodiscard]] std::size_t own_flows() const { return std::min(own_flows_, size()); }

  // ", shared with job 2 (...)" when other jobs' flows cross the resource too.
  [[nodiscard]] std::string shared_with(const PieceFlows& flows, std::uint32_t resource) const;

  FlowPaths& paths_;
  PodArray<std::uint32_t> piece_of_use_;  // grown in place, as FlowPaths' shares
  PodArray<std::uint32_t> first_use_;     // from 0
  // Per flow, the identical flows it stands for; empty while every flow stands for common_weight_
  // (a ring's 8 million flows weigh 1 each, an alltoall's 16 million sampled pairs the same share).
  PodArray<double> weight_;
  double common_weight_ = 1;
  std::size_t own_flows_ = std::numeric_limits<std::size_t>::max();    // flows before the competing ones
  std::vector<std::pair<std::size_t, const std::string*>> competing_;  // each job's first flow, its name
};

}  // namespace fb::topo::detail
