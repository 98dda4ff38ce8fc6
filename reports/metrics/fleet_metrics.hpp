#pragma once
// The history stage's judgement (history/fleet_drift.hpp) as Prometheus gauges for node_exporter's
// textfile collector: the latest run per host, node and collective with its drift and drain state,
// and per fabric cable where a host has exactly one.

#include "diagnosis/drain_list.hpp"
#include "history/fleet_drift.hpp"
#include "reports/metrics/openmetrics.hpp"
#include "topology/graph.hpp"

#include <string>
#include <vector>

namespace fb {

using history::FleetDrift;

// Gauges of the latest run per host and collective, with their drift and drain state.
std::vector<GaugeFamily> fleet_gauges(const FleetDrift& fleet, const diagnosis::DrainList& drain);

struct LinkGauges {
  std::vector<GaugeFamily> families;        // fabricbench_link_*: one sample per cable, labels host, nic, switch, port
  std::size_t mapped_hosts = 0;             // hosts with exactly one fabric cable: their series is that cable's
  std::vector<std::string> several_cables;  // hosts left out: their pair series does not say which cable
  std::vector<std::string> not_in_topology;
};

// The host series of `fleet` on the cables of `graph` (diagnosis/host_cables.hpp).
LinkGauges link_gauges(const FleetDrift& fleet, const topo::Graph& graph);

}  // namespace fb
