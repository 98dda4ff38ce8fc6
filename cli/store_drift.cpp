#include "cli/store_drift.hpp"

#include "common/sizes.hpp"
#include "diagnosis/host_cables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace fb::cli {
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

using Labels = std::vector<std::pair<std::string, std::string>>;

// Prometheus' base units (seconds, bytes): the results' GB/s (10^9 bytes) and microseconds converted
// (a division by 10^6: the nearest double to the time in seconds, where x 1e-6 may miss it by one bit).
constexpr double bytes_per_gb = 1e9;
constexpr double us_per_second = 1e6;

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

std::vector<GaugeFamily> fleet_gauges(const FleetDrift& fleet, const diagnosis::DrainList& drain) {
  GaugeFamily host_bw{"fabricbench_host_bandwidth_bytes_per_second",
                      "latest run: median bandwidth of the host's pair measurements (busbw or algbw) at the size shown",
                      {}};
  GaugeFamily host_latency{"fabricbench_host_latency_seconds",
                           "latest run: median time of the host's latency pairs",
                           {}};
  GaugeFamily host_baseline{"fabricbench_host_baseline_ratio",
                            "latest run's value over the baseline the host is judged against",
                            {}};
  GaugeFamily host_efficiency{"fabricbench_host_efficiency_ratio",
                              "latest run: median measured / model-expected of the host's pair rows",
                              {}};
  GaugeFamily host_degraded{"fabricbench_host_degraded", "1 while the host's series has drifted worse (CUSUM)", {}};
  GaugeFamily host_drained{"fabricbench_host_drained", "1 when the drift judgement lists the host to drain", {}};
  GaugeFamily coll_bw{"fabricbench_collective_busbw_bytes_per_second",
                      "latest run: median busbw of the collective",
                      {}};
  GaugeFamily coll_time{"fabricbench_collective_time_seconds", "latest run: median time of the collective", {}};
  GaugeFamily coll_degraded{"fabricbench_collective_degraded", "1 while the collective's series has drifted worse", {}};
  for (const JudgedSeries& s : fleet.hosts) {
    const store::TrendPoint& last = s.trend.points.back();
    // A series inside the host is told apart by scope="node" and its op; the host's series across
    // the fabric keeps the one label it always had.
    const Labels host = s.trend.query.within_host
                            ? Labels{{"host", s.series.host}, {"scope", "node"}, {"op", s.trend.query.op}}
                            : Labels{{"host", s.series.host}};
    Labels with_series{{"host", s.series.host},
                       {"op", s.trend.query.op},
                       {"bytes", std::to_string(s.trend.query.bytes.value_or(0))}};
    if (s.trend.query.within_host) with_series.emplace_back("scope", "node");
    if (s.trend.latency)
      host_latency.samples.push_back({with_series, last.time_us / us_per_second});
    else if (last.bandwidth_gbps)
      host_bw.samples.push_back({with_series, *last.bandwidth_gbps * bytes_per_gb});
    host_baseline.samples.push_back({host, s.series.values.back() / s.drift.baseline_median});
    if (last.efficiency_pct) host_efficiency.samples.push_back({host, *last.efficiency_pct / 100});
    host_degraded.samples.push_back({host, s.drift.open_change ? 1.0 : 0.0});
    host_drained.samples.push_back({host, std::ranges::count(drain.hosts(), s.series.host) > 0 ? 1.0 : 0.0});
  }
  for (const JudgedSeries& s : fleet.collectives) {
    const store::TrendPoint& last = s.trend.points.back();
    const Labels labels{{"op", s.trend.query.op},
                        {"bytes", std::to_string(s.trend.query.bytes.value_or(0))},
                        {"nranks", std::to_string(s.trend.query.nranks.value_or(0))}};
    if (last.bandwidth_gbps && s.trend.busbw) coll_bw.samples.push_back({labels, *last.bandwidth_gbps * bytes_per_gb});
    coll_time.samples.push_back({labels, last.time_us / us_per_second});
    coll_degraded.samples.push_back({labels, s.drift.open_change ? 1.0 : 0.0});
  }
  return {host_bw,      host_latency, host_baseline, host_efficiency, host_degraded,
          host_drained, coll_bw,      coll_time,     coll_degraded};
}

LinkGauges link_gauges(const FleetDrift& fleet, const topo::Graph& graph) {
  LinkGauges result;
  GaugeFamily bandwidth{"fabricbench_link_bandwidth_bytes_per_second",
                        "latest run: median bandwidth of the pair measurements through the host's one fabric cable",
                        {}};
  GaugeFamily latency{"fabricbench_link_latency_seconds",
                      "latest run: median time of the latency pairs through the host's one fabric cable",
                      {}};
  GaugeFamily baseline{"fabricbench_link_baseline_ratio",
                       "latest run's value over the baseline of the series the cable carries",
                       {}};
  GaugeFamily degraded{"fabricbench_link_degraded",
                       "1 while the series the cable carries has drifted worse (CUSUM)",
                       {}};
  for (const JudgedSeries& s : fleet.hosts) {
    if (s.trend.query.within_host) continue;  // no fabric cable carries it
    const std::vector<diagnosis::HostCable> cables = diagnosis::host_cables(graph, s.series.host);
    if (cables.empty()) {
      result.not_in_topology.push_back(s.series.host);
      continue;
    }
    if (cables.size() > 1) {
      result.several_cables.push_back(s.series.host);
      continue;
    }
    ++result.mapped_hosts;
    const diagnosis::HostCable& cable = cables.front();
    const Labels labels{{"host", cable.host},
                        {"nic", cable.nic},
                        {"switch", cable.fabric_switch},
                        {"port", cable.switch_port ? std::to_string(*cable.switch_port) : ""}};
    const store::TrendPoint& last = s.trend.points.back();
    if (s.trend.latency)
      latency.samples.push_back({labels, last.time_us / us_per_second});
    else if (last.bandwidth_gbps)
      bandwidth.samples.push_back({labels, *last.bandwidth_gbps * bytes_per_gb});
    baseline.samples.push_back({labels, s.series.values.back() / s.drift.baseline_median});
    degraded.samples.push_back({labels, s.drift.open_change ? 1.0 : 0.0});
  }
  result.families = {bandwidth, latency, baseline, degraded};
  return result;
}

}  // namespace fb::cli
