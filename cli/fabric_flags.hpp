#pragma once
// The flags of a fabric a troubleshooting judgement is made against (jobs/topology_input.hpp):
// `diagnose` and `report` take the same ones, so the two judge the same inputs.

#include "jobs/topology_input.hpp"

#include <CLI/CLI.hpp>

namespace fb::cli {

using jobs::FabricSources;
using jobs::LoadedFabric;
using jobs::load_fabric;
using jobs::load_topology_with_warnings;
using jobs::print_assumption_warnings;

// --topology, --format, --routes, --routes-format, --job-mix.
void add_fabric_flags(CLI::App& sub, FabricSources& sources);

}  // namespace fb::cli
