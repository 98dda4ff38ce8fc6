// The fabric layer's flows: pieces of path shared by a model's solves, and one solve over them.

#include "topology/collective_flows.hpp"

#include "common/errors.hpp"
#include "topology/huge_pages.hpp"
#include "topology/link_technology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace fb::topo::detail {

namespace {

bool is_network(LinkType type) {
  return type == LinkType::infiniband || type == LinkType::roce || type == LinkType::efa || type == LinkType::ethernet;
}

// The fastest flow through each of the resources `full` (crossing it with any share). Only the
// pieces that cross one of them count: each piece is looked at once, the first time a flow
// crosses it. A flow only raises its pieces' fastest rate; each crossing piece's resources are
// matched against `full` once at the end (a million GPUs' alltoall matched a climb's dozens of
// resources against the full ones for each of 16 million flows). A maximum is the same in any
// order, so the result is too.
std::vector<double> fastest_through(const PieceFlows& flows, std::span<const double> rate_gbps,
                                    const std::vector<std::uint32_t>& full) {
  constexpr std::uint32_t unknown = std::numeric_limits<std::uint32_t>::max();
  constexpr std::uint32_t crosses_none = unknown - 1;
  // Per piece: unknown, crosses_none, or its index in `crossing`.
  std::vector<std::uint32_t> slot;
  assign_huge(slot, flows.piece_count(), unknown);
  const auto crosses_full = [&](std::uint32_t p) {
    return flows.shares_of(p).any_of(
        [&](const ResourceShare& use) { return std::find(full.begin(), full.end(), use.resource) != full.end(); });
  };
  std::vector<std::uint32_t> crossing;     // the pieces that cross a full resource
  std::vector<double> piece_fastest_gbps;  // by index in `crossing`
  for (std::size_t f = 0; f < flows.size(); ++f) {
    for (const std::uint32_t p : flows.pieces_of(f)) {
      if (slot[p] == unknown) {
        slot[p] = crosses_none;
        if (crosses_full(p)) {
          slot[p] = static_cast<std::uint32_t>(crossing.size());
          crossing.push_back(p);
          piece_fastest_gbps.push_back(0.0);
        }
      }
      if (slot[p] == crosses_none) continue;
      piece_fastest_gbps[slot[p]] = std::max(piece_fastest_gbps[slot[p]], rate_gbps[f]);
    }
  }
  std::vector<double> fastest_gbps(full.size(), 0.0);
  for (std::size_t c = 0; c < crossing.size(); ++c) {
    for (const ResourceShare& use : flows.shares_of(crossing[c])) {
      for (std::size_t k = 0; k < full.size(); ++k) {
        if (full[k] == use.resource) fastest_gbps[k] = std::max(fastest_gbps[k], piece_fastest_gbps[c]);
      }
    }
  }
  return fastest_gbps;
}

// Every resource's capacity: directed links first, then the fabric's bundles. Network resources
// carry their transport's collective efficiency.
std::vector<double> collective_capacity_gbps(const Graph& graph, const std::optional<FabricHierarchy>& fabric) {
  const std::size_t link_resources = 2 * graph.link_count();
  std::vector<double> capacity_gbps;
  assign_huge(capacity_gbps, link_resources + (fabric ? fabric->resource_count() : 0), 0.0);
  for (LinkId l = 0; l < graph.link_count(); ++l) {
    const LinkSpec& spec = graph.link(l).spec;
    capacity_gbps[2 * l] = capacity_gbps[2 * l + 1] =
        spec.capacity_gbps * (is_network(spec.type) ? collective_efficiency(spec) : 1.0);
  }
  if (fabric) {
    for (std::size_t r = 0; r < fabric->resource_count(); ++r) {
      const auto links = fabric->resource_links(static_cast<std::uint32_t>(r));
      const double efficiency = links.empty() ? 1.0 : collective_efficiency(graph.link(links.front()).spec);
      capacity_gbps[link_resources + r] = fabric->resource_capacity_gbps()[r] * efficiency;
    }
  }
  return capacity_gbps;
}

}  // namespace

FlowPaths::FlowPaths(const Graph& graph, std::optional<FabricHierarchy>& fabric, HostRoutes& host_routes)
    : graph_(graph),
      fabric_(fabric),
      host_routes_(host_routes),
      capacity_gbps_(collective_capacity_gbps(graph, fabric)),
      solver_(capacity_gbps_) {}

FlowPaths::LocalPath FlowPaths::local_path(VertexId from, VertexId to) {
  if (last_known_path_.empty()) assign_huge(last_known_path_, graph_.vertex_count(), no_piece);
  // A vertex reaches a handful of others inside its host: a short list beats a hash lookup.
  for (std::uint32_t k = last_known_path_[from]; k != no_piece; k = known_paths_[k].next) {
    const KnownPath& known = known_paths_[k];
    if (known.to == to) return {known.piece, known.latency_us};
  }
  LocalPath path;
  // A rank placed on a NIC (host memory on a host the topology knows only by its NIC) is
  // already where its fabric hop starts.
  if (from == to) {
    path.piece = end_piece();
  } else if (const std::optional<LocalPath> moved = moved_template(from, to)) {
    path = *moved;
  } else {
    const Route* route = host_routes_.between(from, to);
    if (!route) {
      throw InputError(fmt::format("no route from {} to {}", graph_.vertex(from).name, graph_.vertex(to).name));
    }
    path.piece = append_or_move_route(from, to, *route);
    path.latency_us = route->latency_us;
  }
  std::uint32_t& last = last_known_path_[from];
  known_paths_.push_back({to, path.piece, path.latency_us, last});
  last = static_cast<std::uint32_t>(known_paths_.size() - 1);
  return path;
}

std::optional<FlowPaths::LocalPath> FlowPaths::moved_template(VertexId from, VertexId to) {
  const HostRoutes::Placement placement = host_routes_.placement(from, to);
  if (!placement.shifted_alike) return std::nullopt;
  const auto it = local_templates_.find(placement.key);
  if (it == local_templates_.end() || !it->second.placement.shifted_alike) return std::nullopt;
  // The route's links are the template's, each moved by the difference of the two hosts' shifts;
  // a directed link's resource is twice its link's index (plus its direction).
  const std::uint32_t offset = 2 * (placement.link_shift - it->second.placement.link_shift);
  const PieceRange range = ranges_[it->second.piece];
  ranges_.push_back({range.begin, range.end, offset, offset});
  return LocalPath{static_cast<std::uint32_t>(ranges_.size() - 1), it->second.latency_us};
}

std::uint32_t FlowPaths::append_or_move_route(VertexId from, VertexId to, const Route& route) {
  LocalTemplate* first = nullptr;
  if (host_routes_.last_template() != HostRoutes::no_template && !route.uses.empty()) {
    const auto [it, inserted] = local_templates_.try_emplace(host_routes_.last_template());
    first = &it->second;
    if (!inserted) {
      // The same shares in the same order, each resource moved by one offset: the solver then adds
      // the same loads in the same order as from a copy.
      const PieceRange range = ranges_[first->piece];
      const auto offset =
          static_cast<std::uint32_t>(directed_link_index(route.uses.front())) - shares_[range.begin].resource;
      bool moved = range.end - range.begin == route.uses.size();
      for (std::size_t k = 0; moved && k < route.uses.size(); ++k) {
        const ResourceShare& share = shares_[range.begin + k];
        moved = static_cast<std::uint32_t>(directed_link_index(route.uses[k])) == share.resource + offset &&
                route.uses[k].fraction == share.share;
      }
      if (moved) {
        ranges_.push_back({range.begin, range.end, offset, offset});
        return static_cast<std::uint32_t>(ranges_.size() - 1);
      }
      first = nullptr;  // cabled differently: a copy of its own, not a template
    }
  }
  for (const LinkUse& use : route.uses) {
    shares_.push_back({static_cast<std::uint32_t>(directed_link_index(use)), use.fraction});
  }
  const std::uint32_t piece = end_piece();
  if (first != nullptr) *first = {piece, route.latency_us, host_routes_.placement(from, to)};
  return piece;
}

void FlowPaths::know_switch_and_ports(VertexId nic, NicEntry& entry) {
  std::vector<LinkId> ports;
  entry.access_switch = fabric_->access_switch(nic, &ports);
  entry.switch_known = true;
  for (const bool outbound : {true, false}) {
    for (const LinkId l : ports) {
      const bool from_a = (graph_.link(l).a == nic) == outbound;
      shares_.push_back({static_cast<std::uint32_t>(2 * static_cast<std::size_t>(l) + (from_a ? 0 : 1)),
                         1.0 / static_cast<double>(ports.size())});
    }
    (outbound ? entry.port_out : entry.port_in) = end_piece();
  }
}

void FlowPaths::add_fabric_climb(std::uint32_t host, int level, bool downwards) {
  // Past its own ports (the profile's first share), a host's climb depends only on where those
  // ports lead: hosts cabled to the same switches in the same order climb alike, so the first
  // one's profile serves the others, its first share moved to their ports.
  if (cabling_of_host_.empty()) assign_huge(cabling_of_host_, fabric_->hosts().size(), no_piece);
  std::uint32_t& cabling = cabling_of_host_[host];
  if (cabling == no_piece) {
    std::vector<VertexId> far_ends;
    const VertexId host_vertex = fabric_->hosts()[host];
    for (const LinkId l : fabric_->resource_links(host)) {
      const Link& link = graph_.link(l);
      far_ends.push_back(graph_.vertex(link.a).host == host_vertex ? link.b : link.a);
    }
    cabling = cablings_.try_emplace(std::move(far_ends), static_cast<std::uint32_t>(cablings_.size())).first->second;
    if (first_climber_.size() < climb_slots * cablings_.size())
      first_climber_.resize(climb_slots * cablings_.size(), no_piece);
  }
  std::uint32_t& first_climber =
      first_climber_[climb_slots * cabling + 2 * static_cast<std::size_t>(level) + (downwards ? 1 : 0)];
  if (first_climber == no_piece) first_climber = host;
  const std::uint32_t alike = first_climber;
  if (alike == host) {
    // Asked once per cabling, level and direction: not kept in the fabric's table of profiles.
    const auto offset = static_cast<std::uint32_t>(2 * graph_.link_count());
    climb_profile_.clear();
    fabric_->append_profile(fabric_->host_group(host), level, downwards, climb_profile_);
    for (const ResourceShare& use : climb_profile_) shares_.push_back({use.resource + offset, use.share});
    climb_pieces_[climb_slot(host, level, downwards)] = end_piece();
  } else {
    // The first climber's shares, its port (the first share) moved to this host's: fabric
    // resources are numbered host access bundles first, by host.
    const PieceRange first = ranges_[fabric_climb_piece(alike, level, downwards)];
    ranges_.push_back({first.begin, first.end, host - alike, 0});
    climb_pieces_[climb_slot(host, level, downwards)] = static_cast<std::uint32_t>(ranges_.size() - 1);
  }
}

std::uint32_t FlowPaths::switch_climbs_of(VertexId entry) {
  if (switch_climbs_slot_.empty()) assign_huge(switch_climbs_slot_, graph_.vertex_count(), no_piece);
  std::uint32_t& slot = switch_climbs_slot_[entry];
  if (slot == no_piece) {
    slot = static_cast<std::uint32_t>(switch_climbs_.size());
    switch_climbs_.resize(switch_climbs_.size() + climb_slots);
  }
  return slot;
}

FlowPaths::FabricClimb FlowPaths::add_switch_climb(VertexId entry, int level, bool downwards) {
  const auto offset = static_cast<std::uint32_t>(2 * graph_.link_count());
  for (const ResourceShare& use : fabric_->switch_profile(entry, level, downwards)) {
    shares_.push_back({use.resource + offset, use.share});
  }
  return {end_piece(), fabric_->switch_latency_to_level_us(entry, level)};
}

std::uint32_t FlowPaths::host_index(VertexId host) const {
  const std::optional<std::uint32_t> index = fabric_->index_of_host(host);
  if (!index) throw InputError(fmt::format("host {} has no fabric link", graph_.vertex(host).name));
  return *index;
}

std::string FlowPaths::describe(std::uint32_t resource) const {
  const std::size_t link_resources = 2 * graph_.link_count();
  if (resource < link_resources) {
    const Link& link = graph_.link(resource / 2);
    const bool from_a = resource % 2 == 0;
    const VertexId from = from_a ? link.a : link.b;
    const std::string lanes = link.spec.lane_count > 1 ? fmt::format(" x{}", link.spec.lane_count) : "";
    return fmt::format("{} -> {} ({}{}, {:.1f} GB/s effective of {:.1f})", graph_.vertex(from).name,
                       graph_.vertex(link.other_end(from)).name, link.spec.technology, lanes, capacity_gbps_[resource],
                       link.spec.datasheet_gbps);
  }
  const auto fabric_resource = static_cast<std::uint32_t>(resource - link_resources);
  const VertexId owner = fabric_->resource_owner(fabric_resource);
  const bool up = fabric_->resource_is_up(fabric_resource);
  if (fabric_->resource_is_host_access(fabric_resource)) {
    return fmt::format("{}: NIC ports {} the fabric ({:.1f} GB/s)", graph_.vertex(owner).name, up ? "to" : "from",
                       capacity_gbps_[resource]);
  }
  // A switch's bundle is its links to the tier above, one resource per direction: traffic going up
  // through them, and traffic coming down through them (not the switch's links to the tier below).
  return fmt::format("{} uplinks, {} ({:.1f} GB/s)", graph_.vertex(owner).name, up ? "going up" : "coming down",
                     capacity_gbps_[resource]);
}

double Flows::add(std::initializer_list<LocalPath> paths) {
  double latency_us = 0;
  for (const LocalPath& path : paths) {
    piece_of_use_.push_back(path.piece);
    latency_us += path.latency_us;
  }
  end_flow(1.0);
  return latency_us;
}

double Flows::add_fabric_hop(VertexId from, VertexId via, VertexId from_nic, VertexId to_nic, VertexId to) {
  const Graph& graph = paths_.graph();
  const std::uint32_t from_host = paths_.nic_host(from_nic);
  const std::uint32_t to_host = paths_.nic_host(to_nic);
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
    const LocalPath path = paths_.local_path(a, b);
    piece_of_use_.push_back(path.piece);
    latency_us += path.latency_us;
  };
  if (via != from) local(from, via);
  local(via, from_nic);
  piece_of_use_.push_back(paths_.port(from_nic, true));
  if (per_port) {
    const FlowPaths::FabricClimb up = paths_.switch_climb(from_nic, *level, false);
    piece_of_use_.push_back(up.piece);
    const FlowPaths::FabricClimb down = paths_.switch_climb(to_nic, *level, true);
    piece_of_use_.push_back(down.piece);
    latency_us +=
        paths_.latency_to_leaves_us(from_nic) + up.latency_us + paths_.latency_to_leaves_us(to_nic) + down.latency_us;
  } else {
    const FlowPaths::FabricClimb up = paths_.fabric_climb(from_host, *level, false);
    piece_of_use_.push_back(up.piece);
    const FlowPaths::FabricClimb down = paths_.fabric_climb(to_host, *level, true);
    piece_of_use_.push_back(down.piece);
    latency_us += up.latency_us + down.latency_us;
  }
  piece_of_use_.push_back(paths_.port(to_nic, false));
  local(to_nic, to);
  end_flow(1.0);
  return latency_us;
}

void Flows::add_host_pair(std::uint32_t from, std::uint32_t to, double weight) {
  const std::optional<int> level = paths_.meeting_level(from, to);
  if (!level) {
    throw InputError(fmt::format("no fabric route from {} to {}", paths_.graph().vertex(paths_.host_vertex(from)).name,
                                 paths_.graph().vertex(paths_.host_vertex(to)).name));
  }
  piece_of_use_.push_back(paths_.fabric_climb_piece(from, *level, false));
  piece_of_use_.push_back(paths_.fabric_climb_piece(to, *level, true));
  end_flow(weight);
}

void Flows::add_competing(std::span<const CompetingJob> jobs) {
  own_flows_ = size();
  for (const CompetingJob& job : jobs) {
    competing_.emplace_back(size(), &job.name);
    for (const FabricHop& hop : job.hops) add_fabric_hop(hop.from, hop.via, hop.from_nic, hop.to_nic, hop.to);
    for (const auto& [from, to] : job.host_pairs) {
      add_host_pair(paths_.host_index(from), paths_.host_index(to), job.pair_weight);
    }
  }
}

Flows::Solution Flows::solve() const {
  const PieceFlows flows = piece_flows();
  const PieceSolver& solver = paths_.solver();
  const std::span<const double> rate_gbps = paths_.solver().solve(flows);
  const auto slowest =
      std::min_element(rate_gbps.begin(), rate_gbps.begin() + static_cast<std::ptrdiff_t>(own_flows()));
  Solution solution{*slowest, ""};
  // The full resources on the slowest flow's path, in path order: its limit is the first one no
  // flow crosses faster than it (max-min fairness: the one that stopped it).
  std::vector<std::uint32_t> full;
  for (const std::uint32_t p : flows.pieces_of(static_cast<std::size_t>(slowest - rate_gbps.begin()))) {
    for (const ResourceShare& use : flows.shares_of(p)) {
      if (solver.saturated(use.resource) && use.share > 0) full.push_back(use.resource);
    }
  }
  if (full.empty()) return solution;
  const std::vector<double> fastest_gbps = fastest_through(flows, rate_gbps, full);
  for (std::size_t k = 0; k < full.size(); ++k) {
    if (fastest_gbps[k] <= *slowest * (1 + 1e-9)) {
      solution.limit = paths_.describe(full[k]) + shared_with(flows, full[k]);
      return solution;
    }
  }
  return solution;
}

PieceFlows Flows::piece_flows() const {
  PieceFlows flows = paths_.pieces();
  flows.piece_of_use = piece_of_use_;
  flows.first_use = first_use_;
  flows.weight = weight_;
  flows.common_weight = common_weight_;
  return flows;
}

void Flows::spell_out_weights(double weight) {
  weight_.reserve(first_use_.size() - 1);
  for (std::size_t f = 0; f + 1 < size(); ++f) weight_.push_back(common_weight_);
  weight_.push_back(weight);
}

std::string Flows::shared_with(const PieceFlows& flows, std::uint32_t resource) const {
  if (competing_.empty()) return {};
  std::vector<bool> crosses_piece(flows.piece_count(), false);
  for (std::size_t p = 0; p < flows.piece_count(); ++p) {
    const auto shares = flows.shares_of(p);
    crosses_piece[p] = std::any_of(shares.begin(), shares.end(),
                                   [&](const ResourceShare& use) { return use.resource == resource && use.share > 0; });
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

}  // namespace fb::topo::detail
