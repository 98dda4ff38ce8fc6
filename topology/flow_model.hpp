#pragma once
// Max-min fair sharing of capacity among flows (progressive filling). Flows are grouped into
// classes whose members take the same path spread and get the same rate, which is what lets an
// all-to-all over 100,000 GPUs be solved without 10^10 individual flows.

#include <cstdint>
#include <span>
#include <vector>

namespace fb::topo {

struct ResourceShare {
  std::uint32_t resource = 0;  // index into the capacity vector
  double share = 0;            // fraction of one flow's traffic that crosses this resource
};

struct FlowClass {
  // The resources a flow of the class crosses, in pieces that callers share between classes
  // (the fabric part of a route is common to many classes). Spans must outlive the solve.
  std::vector<std::span<const ResourceShare>> segments;
  double flow_count = 1;  // identical flows in the class
};

struct MaxMinAllocation {
  std::vector<double> rate_gbps;  // per flow of each class
  std::vector<double> load_gbps;  // per resource
  std::vector<bool> saturated;    // per resource: full, and limiting some class
  int rounds = 0;                 // filling rounds, one per distinct bottleneck level
};

// Every class's flows grow at the same pace until a resource fills; classes crossing a full
// resource stop there and the rest keep growing. Classes with no resources are given rate 0.
MaxMinAllocation solve_max_min(std::span<const double> capacity_gbps,
                               std::span<const FlowClass> classes);

// The load each resource carries when class c's flows each send offered_rate_gbps[c].
std::vector<double> offered_load(std::size_t resource_count, std::span<const FlowClass> classes,
                                 std::span<const double> offered_rate_gbps);

}  // namespace fb::topo
