#pragma once
// Topology inputs as every command loads them: what a reader assumed (a link rate, an NVLink
// generation, a NUMA node) is printed as a warning, so no guessed number passes as a read one.
// The fabric a troubleshooting judgement is made against (topology, forwarding tables, job mix)
// comes from the same flags in `diagnose` and `report`, so the two judge the same inputs.

#include "diagnosis/fabric_judgement.hpp"
#include "topology/format_registry.hpp"
#include "topology/forwarding_tables.hpp"

#include <memory>
#include <string>
#include <vector>

namespace fb::jobs {

// load_topology, then one "fabricbench: warning: FILE: ..." line on stderr per assumption.
topo::Graph load_topology_with_warnings(const std::vector<std::string>& files, const std::string& format = "auto",
                                        const topo::ReaderHints& hints = {});

void print_assumption_warnings(const topo::Graph& graph);

// --topology, --format, --routes, --routes-format, --job-mix (cli/fabric_flags.hpp).
struct FabricSources {
  std::vector<std::string> topology;
  std::string topology_format = "auto";
  std::string routes_path;
  std::string routes_format = "auto";
  std::string job_mix;
};

// The loaded fabric; its parts stay where they are when it moves (the router points at the graph).
struct LoadedFabric {
  std::unique_ptr<topo::Graph> graph;  // empty without --topology
  std::unique_ptr<topo::ForwardingTables> tables;
  std::unique_ptr<topo::TableRouter> router;
  std::vector<diagnosis::MixedJob> job_mix;

  diagnosis::FabricInputs inputs(std::vector<LoadedResults>& sets) const;
};

// Throws UsageError for --routes without --topology, InputError for unreadable files.
LoadedFabric load_fabric(const FabricSources& sources);

}  // namespace fb::jobs
