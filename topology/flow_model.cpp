#include "topology/flow_model.hpp"

#include "topology/huge_pages.hpp"

#include <algorithm>
#include <limits>

namespace fb::topo {
namespace {

// Relative slack under which a resource counts as full; loads are sums of many fractions.
constexpr double saturation_tolerance = 1e-9;
constexpr double unlimited = std::numeric_limits<double>::infinity();

// One filling round once the active flows' demand growth per unit of rate is known for the
// resources `touched`: raises their loads as far as the first one fills, marks the full ones and
// clears growth and touched. Returns the step every active flow's rate grows by, infinity when
// no touched resource grows (only zero-share uses: nothing in the graph limits the flows).
// `newly_loaded`, where given, gets the touched resources that had no load before the round, in
// the same pass (a second pass over millions of resources cost a cache miss each).
template <typename Saturated>
double fill_round(std::span<const double> capacity_gbps, std::vector<double>& growth,
                  std::vector<std::uint32_t>& touched, std::vector<double>& load_gbps, Saturated& saturated,
                  std::vector<std::uint32_t>* newly_loaded = nullptr) {
  double step = unlimited;
  for (const std::uint32_t r : touched) {
    if (growth[r] > 0) step = std::min(step, std::max(0.0, capacity_gbps[r] - load_gbps[r]) / growth[r]);
  }
  for (const std::uint32_t r : touched) {
    if (newly_loaded != nullptr && load_gbps[r] == 0) newly_loaded->push_back(r);
    if (step != unlimited) {
      load_gbps[r] += step * growth[r];
      if (capacity_gbps[r] - load_gbps[r] <= saturation_tolerance * capacity_gbps[r]) saturated[r] = true;
    }
    growth[r] = 0;
  }
  touched.clear();
  return step;
}

MaxMinAllocation empty_allocation(std::size_t resources, std::size_t flows) {
  MaxMinAllocation result;
  result.rate_gbps.assign(flows, 0.0);
  result.load_gbps.assign(resources, 0.0);
  result.saturated.assign(resources, false);
  return result;
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): progressive filling: saturate, freeze, repeat; the loop is the algorithm
MaxMinAllocation solve_max_min(std::span<const double> capacity_gbps, std::span<const FlowClass> classes) {
  MaxMinAllocation result = empty_allocation(capacity_gbps.size(), classes.size());
  std::vector<std::uint32_t> active;
  for (std::uint32_t c = 0; c < classes.size(); ++c) {
    const bool crosses_something = std::any_of(classes[c].segments.begin(), classes[c].segments.end(),
                                               [](const auto& segment) { return !segment.empty(); });
    if (crosses_something && classes[c].flow_count > 0) active.push_back(c);
  }
  // Demand growth per unit of rate on each resource; reset through `touched` each round so a
  // round costs the size of the active classes, not the resource count.
  std::vector<double> growth(capacity_gbps.size(), 0.0);
  std::vector<std::uint32_t> touched;
  while (!active.empty()) {
    for (const std::uint32_t c : active) {
      for (const auto& segment : classes[c].segments) {
        for (const ResourceShare& use : segment) {
          if (growth[use.resource] == 0) touched.push_back(use.resource);
          growth[use.resource] += classes[c].flow_count * use.share;
        }
      }
    }
    ++result.rounds;
    const double step = fill_round(capacity_gbps, growth, touched, result.load_gbps, result.saturated);
    if (step == unlimited) {
      for (const std::uint32_t c : active) result.rate_gbps[c] = step;
      break;
    }
    for (const std::uint32_t c : active) result.rate_gbps[c] += step;
    std::erase_if(active, [&](std::uint32_t c) {
      for (const auto& segment : classes[c].segments) {
        for (const ResourceShare& use : segment) {
          if (result.saturated[use.resource]) return true;
        }
      }
      return false;
    });
  }
  return result;
}

PieceSolver::PieceSolver(std::span<const double> capacity_gbps) : capacity_gbps_(capacity_gbps) {
  assign_huge(growth_, capacity_gbps.size(), 0.0);
  assign_huge(load_gbps_, capacity_gbps.size(), 0.0);
  assign_huge(saturated_, capacity_gbps.size(), 0);
}

void PieceSolver::forget_last_solve() {
  for (const std::uint32_t r : loaded_) {
    load_gbps_[r] = 0;
    saturated_[r] = 0;
  }
  loaded_.clear();
  rounds_ = 0;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): progressive filling over piecewise flows: saturate, freeze, repeat; the loop is the algorithm
std::span<const double> PieceSolver::solve(const PieceFlows& flows) {
  forget_last_solve();
  assign_huge(rate_gbps_, flows.size(), 0.0);
  // Pieces added since the last solve start unused.
  if (users_.size() < flows.piece_count()) {
    reserve_huge(users_, flows.piece_count());
    reserve_huge(full_, flows.piece_count());
    users_.resize(flows.piece_count(), 0.0);
    full_.resize(flows.piece_count(), 0);
  }
  // Per piece: the active flows crossing it (by weight), then whether it holds a full resource;
  // reset through `live` (the pieces the active flows cross) each round. The lists are the
  // solver's, kept between solves: tens of megabytes each, faulted in afresh by every solve.
  std::vector<std::uint32_t>& live = live_;
  std::vector<std::uint32_t>& next_live = next_live_;
  std::vector<std::uint32_t>& active = active_;
  std::vector<std::uint32_t>& touched = touched_;
  live.clear();
  next_live.clear();
  active.clear();
  touched.clear();
  // At their largest: every flow active, every piece live (grown by doubling, a million GPUs'
  // alltoall copied its 16 million active flows about twice over).
  reserve_huge(active, flows.size());
  reserve_huge(live, flows.piece_count());
  reserve_huge(next_live, flows.piece_count());
  reserve_huge(touched, capacity_gbps_.size());
  const auto count_users = [&](std::uint32_t f) {
    for (const std::uint32_t p : flows.pieces_of(f)) {
      if (users_[p] == 0) next_live.push_back(p);
      users_[p] += flows.weight_of(f);
    }
  };
  // The active flows, counted as they are found: one pass over the flows' pieces.
  for (std::uint32_t f = 0; f < flows.size(); ++f) {
    const auto pieces = flows.pieces_of(f);
    if (flows.weight_of(f) > 0 &&
        std::any_of(pieces.begin(), pieces.end(), [&](std::uint32_t p) { return !flows.shares_of(p).empty(); })) {
      active.push_back(f);
      count_users(f);
    }
  }
  while (!active.empty()) {
    std::swap(live, next_live);
    next_live.clear();
    for (const std::uint32_t p : live) {
      const double users = users_[p];
      flows.shares_of(p).for_each([&](const ResourceShare& use) {
        if (growth_[use.resource] == 0) touched.push_back(use.resource);
        growth_[use.resource] += users * use.share;
      });
    }
    ++rounds_;
    // A resource already loaded by an earlier round is listed already.
    const double step = fill_round(capacity_gbps_, growth_, touched, load_gbps_, saturated_, &loaded_);
    if (step == unlimited) {
      for (const std::uint32_t f : active) rate_gbps_[f] = step;
      for (const std::uint32_t p : live) users_[p] = 0;
      break;
    }
    for (const std::uint32_t p : live) {
      full_[p] =
          flows.shares_of(p).any_of([&](const ResourceShare& use) { return saturated_[use.resource] != 0; }) ? 1 : 0;
      users_[p] = 0;
    }
    // One pass raises the rates, drops the flows that cross a full piece and counts the pieces
    // of the others for the next round.
    std::size_t kept = 0;
    for (const std::uint32_t f : active) {
      rate_gbps_[f] += step;
      const auto pieces = flows.pieces_of(f);
      if (std::any_of(pieces.begin(), pieces.end(), [&](std::uint32_t p) { return full_[p] != 0; })) continue;
      active[kept++] = f;
      count_users(f);
    }
    active.resize(kept);
    for (const std::uint32_t p : live) full_[p] = 0;
  }
  return rate_gbps_;
}

std::vector<double> offered_load(std::size_t resource_count, std::span<const FlowClass> classes,
                                 std::span<const double> offered_rate_gbps) {
  std::vector<double> load(resource_count, 0.0);
  for (std::size_t c = 0; c < classes.size(); ++c) {
    for (const auto& segment : classes[c].segments) {
      for (const ResourceShare& use : segment) {
        load[use.resource] += classes[c].flow_count * offered_rate_gbps[c] * use.share;
      }
    }
  }
  return load;
}

}  // namespace fb::topo
