#include "jobs/topology_input.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

namespace fb::jobs {

topo::Graph load_topology_with_warnings(const std::vector<std::string>& files, const std::string& format,
                                        const topo::ReaderHints& hints) {
  topo::Graph graph = topo::load_topology(files, format, hints);
  print_assumption_warnings(graph);
  return graph;
}

void print_assumption_warnings(const topo::Graph& graph) {
  for (const std::string& assumption : graph.assumptions())
    fmt::print(stderr, "fabricbench: warning: {}\n", assumption);
}

diagnosis::FabricInputs LoadedFabric::inputs(std::vector<LoadedResults>& sets) const {
  return {.sets = sets, .graph = graph.get(), .routes = router.get(), .job_mix = job_mix};
}

LoadedFabric load_fabric(const FabricSources& sources) {
  if (sources.topology.empty() && !sources.routes_path.empty())
    throw UsageError("--routes needs --topology (the fabric's ibnetdiscover output)");
  LoadedFabric fabric;
  if (!sources.job_mix.empty()) fabric.job_mix = diagnosis::parse_job_mix(sources.job_mix);
  if (sources.topology.empty()) return fabric;
  fabric.graph = std::make_unique<topo::Graph>(load_topology_with_warnings(sources.topology, sources.topology_format));
  if (!sources.routes_path.empty()) {
    fabric.tables = std::make_unique<topo::ForwardingTables>(
        topo::load_forwarding_tables(sources.routes_path, sources.routes_format));
    fabric.router = std::make_unique<topo::TableRouter>(*fabric.graph, *fabric.tables);
  }
  return fabric;
}

}  // namespace fb::jobs
