#include "reports/metrics/fleet_metrics.hpp"

#include "diagnosis/host_cables.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fb {
namespace {

using history::JudgedSeries;
using Labels = std::vector<std::pair<std::string, std::string>>;

// Prometheus' base units (seconds, bytes): the results' GB/s (10^9 bytes) and microseconds converted
// (a division by 10^6: the nearest double to the time in seconds, where x 1e-6 may miss it by one bit).
constexpr double bytes_per_gb = 1e9;
constexpr double us_per_second = 1e6;

}  // namespace

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

}  // namespace fb
