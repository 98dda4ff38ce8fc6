#pragma once
// The history stage: the run store judged for drift, for `history drift` and `diagnose --store`:
// every host, pair and collective series read from the store (store/), judged by
// diagnosis/drift.hpp, turned into findings and drain-list entries. reports/metrics/fleet_metrics.hpp
// renders it as Prometheus gauges.

#include "diagnosis/drift.hpp"
#include "diagnosis/drain_list.hpp"
#include "diagnosis/finding.hpp"
#include "store/run_store.hpp"

#include <vector>

namespace fb::history {

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

}  // namespace fb::history
