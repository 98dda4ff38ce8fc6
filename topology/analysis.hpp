#pragma once
// Static analyses of a topology: oversubscription per switch and tier, bisection bandwidth,
// the links a traffic pattern saturates (max-min fair sharing), and the bottleneck bandwidth of
// every GPU or host pair.

#include "topology/fabric_hierarchy.hpp"
#include "topology/graph.hpp"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fb::topo {

struct SwitchOversubscription {
  VertexId switch_vertex = no_vertex;
  double downlink_gbps = 0;                      // towards hosts
  double uplink_gbps = 0;                        // towards the core
  std::optional<double> oversubscription_ratio;  // none for the top tier (no uplinks)
};

struct TierOversubscription {
  SwitchTier tier = SwitchTier::none;
  std::size_t switch_count = 0;
  double downlink_gbps = 0;
  double uplink_gbps = 0;
  std::optional<double> oversubscription_ratio;  // tier totals
  std::optional<double> worst_switch_ratio;      // the most oversubscribed switch
};

struct OversubscriptionReport {
  std::vector<SwitchOversubscription> switches;
  std::vector<TierOversubscription> tiers;  // leaf, spine, core; only tiers that exist
};

OversubscriptionReport analyze_oversubscription(const Graph& graph);

enum class TrafficPattern {
  all_to_all,    // every host to every other host
  ring,          // host i to host i+1, in host order
  leaf_to_leaf,  // the hosts under leaf k to those under leaf k+1, pairwise
  bisection,     // host i to host i + N/2 and back: the first half against the second
};
std::string_view name_of(TrafficPattern pattern);
std::optional<TrafficPattern> traffic_pattern_from_string(std::string_view name);

// A link that the pattern fills: its fair share of the traffic equals its capacity.
struct SaturatedLink {
  LinkId link = 0;
  VertexId from = no_vertex;  // direction of the saturated traffic
  VertexId to = no_vertex;
  double capacity_gbps = 0;
  double expected_load_gbps = 0;  // what the pattern offers at full injection rate
  double load_ratio = 0;          // expected load / capacity
};

struct PatternAnalysis {
  TrafficPattern pattern = TrafficPattern::all_to_all;
  std::size_t host_count = 0;
  std::size_t flow_classes = 0;
  double offered_gbps = 0;   // every host injecting at its access capacity
  double achieved_gbps = 0;  // the max-min fair total
  double min_flow_rate_gbps = 0;
  // The slowest flow on a non-blocking fabric: the same flows with only the hosts' NIC ports
  // limiting. With equal amounts of data per flow the pattern completes when its slowest flow
  // does, so completion_time_ratio (>= 1) is how much longer the fabric makes the pattern take.
  double nonblocking_min_flow_rate_gbps = 0;
  double completion_time_ratio = 1;
  std::string slowest_flow_limit;       // the full resource that stops the slowest flow
  std::vector<SaturatedLink> blocking;  // fabric links only: a full host link is not blocking
};

// Throws InputError when the fabric is malformed for up-down routing (an untiered
// switch). A graph without a fabric gives an analysis with no hosts.
PatternAnalysis analyze_pattern(FabricHierarchy& fabric, TrafficPattern pattern);

// The hosts of each part of a fabric that no switch joins (leaves without a common spine), in
// host order; one part for a connected fabric.
std::vector<std::vector<VertexId>> fabric_partitions(const FabricHierarchy& fabric);
// Whether links join the parts after all: switches of one tier cabled to each other (leaf to
// leaf) join them, but up-down routing has no path over such links.
bool parts_are_linked(const Graph& graph, const std::vector<std::vector<VertexId>>& parts);

// Bisection bandwidth (one direction) as the max-min throughput of the bisection pattern: what
// up-down ECMP routing can carry between the halves, not a graph-theoretic cut.
double bisection_bandwidth_gbps(FabricHierarchy& fabric);

struct PairBandwidth {
  VertexId a = no_vertex;
  VertexId b = no_vertex;
  double bottleneck_gbps = 0;  // one flow alone, a to b
  double latency_us = 0;
};

// Every unordered pair of GPUs (routes through the whole graph) or of fabric-attached hosts.
// Refuses (InputError) more than max_pairs pairs.
std::vector<PairBandwidth> gpu_pair_bandwidths(const Graph& graph, std::size_t max_pairs);
std::vector<PairBandwidth> host_pair_bandwidths(FabricHierarchy& fabric, std::size_t max_pairs);

nlohmann::json to_json(const Graph& graph, const OversubscriptionReport& report);
nlohmann::json to_json(const Graph& graph, const PatternAnalysis& analysis);

}  // namespace fb::topo
