#pragma once
// The fabric as an operator reads it, for the report: spines over leaves over hosts, the hosts of a
// leaf one box with their count unless a finding names one of them. `topo dot` keeps the full
// drawing of every device; this one stays legible from one node to thousands.

#include "topology/graph.hpp"

#include <span>
#include <string>

namespace fb {

// Leaves beyond this many are collapsed too (all but those a finding touches).
inline constexpr std::size_t drawn_leaves_max = 24;
// A tier above the leaves with more switches than this is one box (but for those a finding touches).
inline constexpr std::size_t drawn_upper_switches_max = 8;

// Graphviz DOT. A host is drawn alone, red, when its name occurs in one of `finding_subjects` or a
// flagged link touches it; flagged links between switches are red. Parallel links between two
// switches are one edge labelled with their count.
std::string fabric_overview_dot(const topo::Graph& graph, std::span<const topo::LinkId> flagged_links,
                                std::span<const std::string> finding_subjects);

}  // namespace fb
