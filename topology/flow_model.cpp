#include "topology/flow_model.hpp"

#include <algorithm>
#include <limits>

namespace fb::topo {
namespace {

// Relative slack under which a resource counts as full; loads are sums of many fractions.
constexpr double saturation_tolerance = 1e-9;

}  // namespace

MaxMinAllocation solve_max_min(std::span<const double> capacity_gbps,
                               std::span<const FlowClass> classes) {
  MaxMinAllocation result;
  result.rate_gbps.assign(classes.size(), 0.0);
  result.load_gbps.assign(capacity_gbps.size(), 0.0);
  result.saturated.assign(capacity_gbps.size(), false);

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
    ++result.rounds;
    for (const std::uint32_t c : active) {
      for (const auto& segment : classes[c].segments) {
        for (const ResourceShare& use : segment) {
          if (growth[use.resource] == 0) touched.push_back(use.resource);
          growth[use.resource] += classes[c].flow_count * use.share;
        }
      }
    }
    double step = std::numeric_limits<double>::infinity();
    for (const std::uint32_t r : touched) {
      if (growth[r] > 0) {
        step = std::min(step, std::max(0.0, capacity_gbps[r] - result.load_gbps[r]) / growth[r]);
      }
    }
    if (step == std::numeric_limits<double>::infinity()) {
      // Only zero-share uses remain: nothing in the graph limits these classes.
      for (const std::uint32_t r : touched) growth[r] = 0;
      for (const std::uint32_t c : active) result.rate_gbps[c] = step;
      break;
    }
    for (const std::uint32_t c : active) result.rate_gbps[c] += step;
    for (const std::uint32_t r : touched) {
      result.load_gbps[r] += step * growth[r];
      if (capacity_gbps[r] - result.load_gbps[r] <= saturation_tolerance * capacity_gbps[r]) {
        result.saturated[r] = true;
      }
      growth[r] = 0;
    }
    touched.clear();
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
