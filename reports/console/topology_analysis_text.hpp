#pragma once
// The console views of `topo show` and `topo analyze`: the topology's counts, the oversubscription
// per tier, a fabric in parts, and the traffic pattern: the bisection, how much longer the pattern
// takes than on a non-blocking fabric, the links that block it, and hosts whose GPUs cannot fill
// what their NIC ports carry.

#include "topology/analysis.hpp"
#include "topology/host_injection.hpp"

#include <cstddef>
#include <span>
#include <vector>

namespace fb {

// On stdout; at most `max_rows` blocking links, with a count of the rest.
void print_pattern_analysis(const topo::Graph& graph, double bisection_gbps, const topo::PatternAnalysis& analysis,
                            std::span<const topo::HostInjection> shortfalls, std::size_t max_rows);

// `topo show`: counts of vertices and switches by kind and tier, links by technology, the links
// whose rate is undecided, the oversubscription per tier and every assumption.
void print_topology_summary(const topo::Graph& graph, std::size_t files);

// The oversubscription per tier; tiers whose uplinks the inputs did not state are marked assumed.
void print_oversubscription(const topo::Graph& graph, const topo::OversubscriptionReport& report);

// A fabric in parts: `linked` when links between switches of one tier join them (no common upper
// tier), else disconnected; each part's host count and its first and last host.
void print_partitions(const topo::Graph& graph, const std::vector<std::vector<topo::VertexId>>& partitions,
                      bool linked);

}  // namespace fb
