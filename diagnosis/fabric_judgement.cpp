#include "diagnosis/fabric_judgement.hpp"

#include "diagnosis/expectation_columns.hpp"
#include "diagnosis/topology_diagnosis.hpp"
#include "topology/pair_coverage.hpp"

#include <fmt/format.h>

#include <set>
#include <sstream>

namespace fb::diagnosis {
namespace {

// The host a finding blames: its own host, or the host at either end of its link (a host's cable
// to its switch). A link between two switches blames no host.
std::string blamed_host(const topo::Graph& graph, const Finding& finding) {
  if (!finding.host.empty()) return finding.host;
  if (!finding.link) return "";
  const topo::Link& link = graph.link(*finding.link);
  for (const topo::VertexId end : {link.a, link.b}) {
    const topo::VertexId host = graph.vertex(end).host;
    if (host != topo::no_vertex) return graph.vertex(host).name;
  }
  return "";
}

FindingTicket ranked_finding(const topo::Graph& graph, Finding finding, std::size_t rank,
                             std::optional<FaultCost> cost) {
  FindingTicket ranked{.finding = {}, .rank = rank, .cost = std::move(cost), .ticket = repair_ticket(graph, finding)};
  if (!ranked.cost) ranked.no_cost = no_cost_text(finding);
  ranked.blamed_host = blamed_host(graph, finding);
  if (finding.link) {
    const topo::Link& link = graph.link(*finding.link);
    ranked.link_a = graph.vertex(link.a).name;
    ranked.link_b = graph.vertex(link.b).name;
  }
  // The alternatives as the named cable is located: both ends with their ports.
  for (const topo::LinkId parallel : finding.parallel_links)
    ranked.parallel_links.push_back(cable_location(graph, parallel));
  ranked.finding = std::move(finding);
  return ranked;
}

void judge_against_model(const FabricInputs& inputs, FabricJudgement& judged) {
  const topo::Graph& graph = *inputs.graph;
  std::ostringstream warnings;
  ExpectationColumns(graph, warnings).add(inputs.sets);
  std::istringstream lines(warnings.str());
  for (std::string line; std::getline(lines, line);) judged.warnings.push_back(line);
  judged.diagnosis = diagnose_against_topology(graph, inputs.sets, inputs.routes);
  const std::vector<MixedJob> mix = inputs.job_mix.empty() ? default_job_mix() : inputs.job_mix;
  const std::vector<std::optional<FaultCost>> costs = rank_by_cost(graph, judged.diagnosis, mix, inputs.routes);
  judged.job_mix = describe_job_mix(mix);
  judged.cost_basis = describe_cost_basis(inputs.routes);
  for (std::size_t f = 0; f < judged.diagnosis.findings.size(); ++f) {
    FindingTicket ranked = ranked_finding(graph, judged.diagnosis.findings[f], f + 1, costs[f]);
    if (ranked.finding.link) judged.flagged_links.push_back(*ranked.finding.link);
    judged.flagged_links.insert(judged.flagged_links.end(), ranked.finding.parallel_links.begin(),
                                ranked.finding.parallel_links.end());
    if (!ranked.blamed_host.empty() && ranked.finding.confidence.value_or(1.0) >= drain_confidence)
      judged.drain.add(ranked.blamed_host,
                       fmt::format("rank {}{}: {} {}", ranked.rank,
                                   ranked.cost ? fmt::format(" ({:+.1f}% of the job mix)", 100 * ranked.cost->slowdown)
                                               : "",
                                   ranked.finding.kind, ranked.finding.subject));
    judged.ranked.push_back(std::move(ranked));
  }
  for (const std::size_t directed : judged.diagnosis.uncovered_links)
    judged.uncovered_links.push_back(
        {topo::directed_link_name(graph, directed), cable_location(graph, static_cast<topo::LinkId>(directed / 2))});
  for (const std::size_t directed : judged.diagnosis.unverified_links)
    judged.unverified_links.push_back(
        {topo::directed_link_name(graph, directed), cable_location(graph, static_cast<topo::LinkId>(directed / 2))});
  if (inputs.plan_confirm) {
    std::set<std::string> measured;
    for (const LoadedResults& set : inputs.sets)
      for (const ResultRow& row : set.results.rows)
        if (is_pair_bandwidth_row(row)) measured.insert({row.src_host, row.dst_host});
    judged.confirm_plan = plan_confirm(graph, judged.diagnosis, {measured.begin(), measured.end()}, inputs.routes);
  }
}

}  // namespace

std::vector<Finding> FabricJudgement::row_findings() const {
  std::vector<Finding> findings = wrong_results;
  findings.insert(findings.end(), drift.begin(), drift.end());
  findings.insert(findings.end(), slow_hosts.begin(), slow_hosts.end());
  return findings;
}

FabricJudgement judge_fabric(const FabricInputs& inputs, const std::string& drained_by) {
  FabricJudgement judged;
  judged.drain = DrainList(drained_by);
  judged.topology_given = inputs.graph != nullptr;
  if (inputs.graph) judge_against_model(inputs, judged);
  const std::vector<ResultRow> rows = all_rows(inputs.sets);
  judged.incidents = all_incidents(inputs.sets).size();
  judged.wrong_results = find_wrong_results(rows);
  judged.drift = inputs.drift;
  if (!inputs.graph) {
    // Without a topology the peers are the reference: a host whose pair measurements sit far below
    // the others' (median absolute deviation) is named.
    judged.host_outliers = find_slow_hosts(rows);
    for (const HostOutliers& outliers : judged.host_outliers)
      for (const Finding& finding : outliers.findings) {
        judged.slow_hosts.push_back(finding);
        judged.drain.add(finding.subject, fmt::format("{}: {}", finding.kind, finding.evidence_text()));
      }
  }
  for (const HostReason& drifted : inputs.drifted_hosts) judged.drain.add(drifted.host, drifted.reason);
  judged.efficiency = summarize_efficiency(rows);
  return judged;
}

}  // namespace fb::diagnosis
