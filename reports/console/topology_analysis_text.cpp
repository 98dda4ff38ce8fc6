// The console view of topo analyze's traffic pattern (topology_analysis_text.hpp).

#include "reports/console/topology_analysis_text.hpp"

#include <fmt/format.h>

#include <string>

namespace fb {

void print_pattern_analysis(const topo::Graph& graph, double bisection_gbps, const topo::PatternAnalysis& analysis,
                            std::span<const topo::HostInjection> shortfalls, std::size_t max_rows) {
  const std::string_view pattern = topo::name_of(analysis.pattern);
  fmt::print("\n# bisection bandwidth {:.1f} GB/s per direction ({} hosts)\n", bisection_gbps, analysis.host_count);
  // The headline is the completion time: a total near 100% of what is offered can hide flows
  // that crawl through a full uplink while others race.
  fmt::print("# {}: takes {:.2f}x as long as on a non-blocking fabric: slowest flow {:.3f} GB/s against {:.3f} "
             "GB/s, held by {}\n",
             pattern, analysis.completion_time_ratio, analysis.min_flow_rate_gbps,
             analysis.nonblocking_min_flow_rate_gbps, analysis.slowest_flow_limit);
  fmt::print("# {}: offered {:.1f} GB/s in all, max-min fair total {:.1f} GB/s\n", pattern, analysis.offered_gbps,
             analysis.achieved_gbps);
  fmt::print("# {} blocking link direction(s)\n", analysis.blocking.size());
  if (!analysis.blocking.empty()) {
    fmt::print("{:<28} {:<28} {:>10} {:>14} {:>8}\n", "from", "to", "cap GB/s", "expected GB/s", "load");
  }
  for (std::size_t i = 0; i < analysis.blocking.size() && i < max_rows; ++i) {
    const topo::SaturatedLink& finding = analysis.blocking[i];
    fmt::print("{:<28} {:<28} {:>10.1f} {:>14.1f} {:>7.2f}x\n", graph.vertex(finding.from).name,
               graph.vertex(finding.to).name, finding.capacity_gbps, finding.expected_load_gbps, finding.load_ratio);
  }
  if (analysis.blocking.size() > max_rows) {
    fmt::print("... and {} more (--max-rows, or --json for all)\n", analysis.blocking.size() - max_rows);
  }
  for (const topo::HostInjection& injection : shortfalls) {
    fmt::print("# {}{}: its GPUs reach its NICs at {:.1f} GB/s of the {:.1f} its ports carry for collectives ({:.1f} "
               "at line rate): {} fills first, each GPU sending through its nearest NIC; the fabric figures above "
               "are at the ports' line rate, more than these hosts offer\n",
               graph.vertex(injection.host).name,
               injection.hosts > 1 ? fmt::format(" (and {} hosts built alike)", injection.hosts - 1) : std::string(),
               injection.reachable_gbps, injection.port_collective_gbps, injection.port_gbps,
               topo::describe_direction(graph, injection.limit, injection.limit_from_a));
  }
}

}  // namespace fb
