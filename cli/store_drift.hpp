#pragma once
// The run store judged for drift, for `history drift` and `diagnose --store`: every host, pair and
// collective series read from the store (store/), judged by diagnosis/drift.hpp, turned into
// findings, drain-list entries and Prometheus gauges.

#include "diagnosis/drift.hpp"
#include "diagnosis/drain_list.hpp"
#include "diagnosis/finding.hpp"
#include "topology/graph.hpp"
#include "reports/metrics/openmetrics.hpp"
#include "store/run_store.hpp"

#include <vector>

namespace fb::cli {

struct JudgedSeries {
  store::Trend trend;
  diagnosis::RunSeries series;
  diagnosis::SeriesDrift drift;
};

struct FleetDrift {
  std::vector<JudgedSeries> hosts;
  std::vector<JudgedSeries> pairs;
  std::vector<JudgedSeries> collectives;
};

// The series of a trend: busbw (or algbw) per run, a latency op's time.
diagnosis::RunSeries run_series(const store::Trend& trend);

FleetDrift judge_store(store::RunStore& store, const diagnosis::DriftSettings& settings);

// One `drift` finding per series that is worse now than its baseline.
std::vector<diagnosis::Finding> drift_findings(const FleetDrift& fleet);

// The hosts whose own series drifted worse; a pair or a collective blames no single host.
std::vector<diagnosis::HostReason> drifted_hosts(const FleetDrift& fleet);

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

}  // namespace fb::cli
