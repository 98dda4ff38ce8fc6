#include "history/fleet_drift.hpp"

#include "common/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace fb::history {
namespace {

std::string describe_series(const store::SeriesQuery& q) {
  std::string what = q.bytes ? fmt::format("{} {}", q.op, format_size_bytes(*q.bytes)) : q.op;
  if (!q.peer.empty()) return fmt::format("pair {} <-> {}: {}", q.host, q.peer, what);
  if (q.within_host) return fmt::format("host {} within: {}", q.host, what);
  if (!q.host.empty()) return fmt::format("host {}: {}", q.host, what);
  return q.nranks ? fmt::format("{}, {} ranks", what, *q.nranks) : what;
}

std::vector<JudgedSeries> judge(store::RunStore& store, const std::vector<store::SeriesQuery>& queries,
                                const diagnosis::DriftSettings& settings) {
  std::vector<JudgedSeries> judged;
  for (const store::SeriesQuery& query : queries) {
    store::Trend trend = store.trend(query);
    diagnosis::RunSeries series = run_series(trend);
    diagnosis::SeriesDrift drift = diagnosis::judge_series(series, settings);
    judged.push_back({std::move(trend), std::move(series), std::move(drift)});
  }
  return judged;
}

}  // namespace

diagnosis::RunSeries run_series(const store::Trend& trend) {
  diagnosis::RunSeries series{.subject = describe_series(trend.query),
                              .host = trend.query.peer.empty() ? trend.query.host : "",
                              .value_name = trend.latency ? "time"
                                            : trend.busbw ? "busbw"
                                                          : "algbw",
                              .unit = trend.latency ? "us" : "GB/s",
                              .higher_is_better = !trend.latency};
  for (const store::TrendPoint& point : trend.points) {
    series.run_ids.push_back(point.run_id);
    series.start_times.push_back(point.start_time);
    series.values.push_back(trend.latency || !point.bandwidth_gbps ? point.time_us : *point.bandwidth_gbps);
  }
  return series;
}

FleetDrift judge_store(store::RunStore& store, const diagnosis::DriftSettings& settings) {
  const store::SeriesCatalog catalog = store.catalog();
  FleetDrift fleet{judge(store, catalog.hosts, settings), judge(store, catalog.pairs, settings),
                   judge(store, catalog.collectives, settings)};
  // Series inside one host are the host's, judged and exported like its series across the fabric.
  std::vector<JudgedSeries> within = judge(store, catalog.within_hosts, settings);
  std::move(within.begin(), within.end(), std::back_inserter(fleet.hosts));
  return fleet;
}

std::vector<diagnosis::Finding> drift_findings(const FleetDrift& fleet) {
  std::vector<diagnosis::Finding> findings;
  for (const std::vector<JudgedSeries>* group : {&fleet.hosts, &fleet.pairs, &fleet.collectives})
    for (const JudgedSeries& s : *group)
      if (s.drift.open_change)
        findings.push_back({.kind = "drift",
                            .subject = s.series.subject,
                            .expected = s.drift.open_change->baseline.median,
                            .measured = s.drift.open_change->changed_median,
                            .unit = s.series.unit,
                            .evidence = {s.drift.evidence}});
  return findings;
}

std::vector<diagnosis::HostReason> drifted_hosts(const FleetDrift& fleet) {
  std::vector<diagnosis::HostReason> hosts;
  for (const JudgedSeries& s : fleet.hosts)
    if (s.drift.open_change)
      hosts.push_back({s.series.host, fmt::format("drift {}: {}", s.series.subject, s.drift.evidence)});
  return hosts;
}

}  // namespace fb::history
