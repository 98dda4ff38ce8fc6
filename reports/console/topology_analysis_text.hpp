#pragma once
// The console view of `topo analyze`'s traffic pattern: the bisection, how much longer the
// pattern takes than on a non-blocking fabric, the links that block it, and hosts whose GPUs
// cannot fill what their NIC ports carry.

#include "topology/analysis.hpp"
#include "topology/host_injection.hpp"

#include <cstddef>
#include <span>

namespace fb {

// On stdout; at most `max_rows` blocking links, with a count of the rest.
void print_pattern_analysis(const topo::Graph& graph, double bisection_gbps, const topo::PatternAnalysis& analysis,
                            std::span<const topo::HostInjection> shortfalls, std::size_t max_rows);

}  // namespace fb
