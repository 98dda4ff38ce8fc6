#include "diagnosis/port_diagnosis.hpp"

#include "common/robust_statistics.hpp"
#include "topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace fb::diagnosis {

using topo::Graph;
using topo::LinkId;
using topo::VertexId;
using topo::VertexKind;
using topo::no_vertex;
namespace {

// A pair row at its run's largest size, with the median of the rows measured like it.
struct PairRow {
  const ResultRow* row = nullptr;
  double typical_gbps = 0;
};

std::vector<PairRow> pair_rows_at_largest_size(std::span<const ResultRow> rows) {
  std::map<std::string, std::uint64_t> largest_bytes;  // by op
  for (const ResultRow& row : rows)
    if (is_pair_bandwidth_row(row)) largest_bytes[row.op] = std::max(largest_bytes[row.op], row.bytes);
  using Group = std::tuple<std::string, bool>;  // op, measured alone
  std::map<Group, std::vector<double>> bandwidths;
  std::vector<const ResultRow*> selected;
  for (const ResultRow& row : rows) {
    if (!is_pair_bandwidth_row(row) || row.bytes != largest_bytes[row.op]) continue;
    selected.push_back(&row);
    bandwidths[{row.op, row.concurrent_flows.value_or(1) == 1}].push_back(row.algbw_gbps);
  }
  std::vector<PairRow> pair_rows;
  for (const ResultRow* row : selected)
    pair_rows.push_back({row, median_of(bandwidths[{row->op, row->concurrent_flows.value_or(1) == 1}])});
  return pair_rows;
}

// "HOST/mlx5_3 <-> leaf01": the cable of the port's NIC, when the topology has the host.
std::optional<LinkId> cable_of(const Graph& graph, const PortCounterChange& change) {
  const std::string device = change.port.substr(0, change.port.find('/'));
  VertexId nic = graph.find(change.host + "/" + device);
  if (nic == no_vertex || graph.vertex(nic).kind != VertexKind::nic) {
    const std::optional<VertexId> first = first_nic_of_host(graph, change.host);
    if (!first) return std::nullopt;
    nic = *first;
  }
  for (const LinkId link : graph.links_of(nic))
    if (graph.vertex(graph.link(link).other_end(nic)).kind == VertexKind::fabric_switch) return link;
  return std::nullopt;
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one finding per port with its repetitions and the pairs crossing it as evidence
std::vector<Finding> diagnose_port_counters(const Graph& graph, std::span<const PortCounterChange> changes,
                                            std::span<const ResultRow> rows, const DiagnosisSettings& settings) {
  const std::vector<PairRow> pair_rows = pair_rows_at_largest_size(rows);
  std::vector<Finding> findings;
  // A soak run reads every port once per repetition: one finding per port, with the repetitions
  // it degraded in as further evidence.
  std::map<std::pair<std::string, std::string>, std::size_t> finding_of_port;
  const std::string run = rows.empty() ? "" : fmt::format(" during run {}", rows.front().run_id);
  for (const PortCounterChange& change : changes) {
    if (!change.degraded()) continue;
    const auto [known, first] = finding_of_port.try_emplace({change.host, change.port}, findings.size());
    if (!first) {
      findings[known->second].evidence.push_back(describe_port_change(change) + run);
      continue;
    }
    Finding finding;
    finding.kind = "port_errors";
    finding.host = change.host;
    finding.link = cable_of(graph, change);
    // The subject carries what grew: a drain list or a table line shows the subject alone.
    const std::string what = describe_port_change(change);
    finding.subject = fmt::format("{} {}{}{}", change.host, change.port,
                                  finding.link ? fmt::format(" ({})", link_name(graph, *finding.link)) : "",
                                  what.substr(what.find(':')));
    finding.evidence.push_back(describe_port_change(change) + run);

    std::vector<double> measured;
    std::vector<double> typical;
    std::size_t touching = 0;
    for (const PairRow& pair : pair_rows) {
      const ResultRow& row = *pair.row;
      if (row.src_host != change.host && row.dst_host != change.host) continue;
      ++touching;
      if (row.algbw_gbps >= settings.slow_ratio * pair.typical_gbps) continue;
      measured.push_back(row.algbw_gbps);
      typical.push_back(pair.typical_gbps);
      finding.evidence.push_back(
          fmt::format("slow pair {} -> {}: {:.4g} GB/s, median of the run {:.4g} GB/s ({} {} B{})", row.src_host,
                      row.dst_host, row.algbw_gbps, pair.typical_gbps, row.op, row.bytes,
                      row.concurrent_flows.value_or(1) > 1 ? ", together" : ""));
    }
    if (!measured.empty()) finding.set_bandwidth_gbps(median_of(typical), median_of(measured));
    finding.confidence = touching > 0 ? static_cast<double>(measured.size()) / static_cast<double>(touching) : 0;
    if (touching == 0) finding.evidence.push_back("no pair touching this host was measured in the run");
    findings.push_back(std::move(finding));
  }
  return findings;
}

}  // namespace fb::diagnosis
