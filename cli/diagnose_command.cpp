// `fabricbench diagnose --results PATH... [--topology FILE...]`: measured pair bandwidths joined to
// the model's routes, to name the degraded link, the blocking link or the slow node.

#include "diagnosis/drain_list.hpp"
#include "diagnosis/efficiency.hpp"
#include "diagnosis/finding.hpp"
#include "diagnosis/host_outliers.hpp"
#include "results/result_loading.hpp"
#include "cli/command.hpp"
#include "diagnosis/expectation_columns.hpp"
#include "diagnosis/topology_diagnosis.hpp"
#include "cli/topology_input.hpp"
#include "cli/fail_on.hpp"
#include "cli/store_drift.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "results/results_io.hpp"
#include "diagnosis/confirm_plan.hpp"
#include "diagnosis/diagnosis.hpp"
#include "diagnosis/repair_ticket.hpp"
#include "diagnosis/fault_cost.hpp"
#include "topology/format_registry.hpp"
#include "topology/forwarding_tables.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>
#include <set>

namespace fb::cli {

using diagnosis::ConfirmPlan;
using diagnosis::DrainList;
using diagnosis::FaultCost;
using diagnosis::MixedJob;
using diagnosis::RepairTicket;
using diagnosis::default_job_mix;
using diagnosis::describe_job_mix;
using diagnosis::format_pairs_file;
using diagnosis::is_pair_bandwidth_row;
using diagnosis::parse_job_mix;
using diagnosis::plan_confirm;
using diagnosis::describe_cost_basis;
using diagnosis::rank_by_cost;
using diagnosis::repair_ticket;
using diagnosis::EfficiencySummary;
using diagnosis::ExpectationColumns;
using diagnosis::Finding;
using diagnosis::HostOutliers;
using diagnosis::Diagnosis;
using diagnosis::diagnose_against_topology;
using diagnosis::find_slow_hosts;
using diagnosis::find_wrong_results;
using diagnosis::summarize_efficiency;
using diagnosis::to_json;
namespace {

struct DiagnoseOptions {
  std::vector<std::string> results;
  std::vector<std::string> topology;
  std::string topology_format = "auto";
  std::string json_path;
  std::vector<std::string> fail_on;
  std::string drain_list_path;
  std::string routes_path;
  std::string routes_format = "auto";
  std::string plan_confirm_path;
  std::string job_mix;
  std::string store_url;  // also judge this run store's history for drift
};

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

void print_diagnosis(std::ostream& out, const topo::Graph& graph, const Diagnosis& diagnosis,
                     std::span<const std::optional<FaultCost>> costs, const std::string& mix,
                     const std::string& cost_basis, std::size_t incidents, std::span<const Finding> wrong_results) {
  out << fmt::format("# {} pair measurements examined (each run's largest size); scale {:.4g} measured GB/s per "
                     "modelled GB/s; {} slow, {} explained by the findings\n",
                     diagnosis.flows_examined, diagnosis.calibration, diagnosis.slow_flows,
                     diagnosis.slow_flows_explained);
  if (!diagnosis.tables_given)
    out << "# routes: the model's ECMP spread over equal-cost links (no --routes): a fault in a bundle of parallel "
           "cables is named as one of them\n";
  else
    out << fmt::format("# routes: {} of {} pair measurements on the forwarding tables' paths{}\n",
                       diagnosis.flows_on_table_routes, diagnosis.flows_examined,
                       diagnosis.flows_on_table_routes < diagnosis.flows_examined
                           ? ", the others (no table entry) on the model's ECMP spread"
                           : "");
  if (incidents > 0)
    out << fmt::format("# {} incident{} (runs the watchdog ended)\n", incidents, incidents == 1 ? "" : "s");
  if (diagnosis.findings.empty() && wrong_results.empty()) {
    out << "# no findings\n";
    return;
  }
  out << fmt::format("# {:<14} {:<56} {:>12} {:>12} {:>7} {:>10}\n", "kind", "subject", "expected GB/s",
                     "measured GB/s", "ratio", "confidence");
  out << fmt::format("# ranked by the predicted slowdown of {} (the collective model, the fault at its measured "
                     "ratio against the healthy fabric; {})\n",
                     mix, cost_basis);
  for (std::size_t f = 0; f < diagnosis.findings.size(); ++f) {
    const Finding& finding = diagnosis.findings[f];
    // Findings from incidents have no bandwidth to compare.
    const double confidence = finding.confidence.value_or(0);
    if (finding.expected.value_or(0) > 0)
      out << fmt::format("  {:<14} {:<56} {:>12.4g} {:>12.4g} {:>7.3f} {:>10.2f}\n", finding.kind, finding.subject,
                         *finding.expected, finding.measured.value_or(0), finding.ratio().value_or(0), confidence);
    else
      out << fmt::format("  {:<14} {:<56} {:>12} {:>12} {:>7} {:>10.2f}\n", finding.kind, finding.subject, "-", "-",
                         "-", confidence);
    const RepairTicket ticket = repair_ticket(graph, finding);
    out << fmt::format("      rank {}: {}\n", f + 1,
                       costs[f] ? fmt::format("{:+.1f}% predicted for the job mix ({})", 100 * costs[f]->slowdown,
                                              costs[f]->degraded)
                                : std::string("no predicted cost (the model has no rate to degrade for it)"));
    out << fmt::format("      where:   {}\n      do:      {}\n      confirm: {}\n", ticket.location, ticket.action,
                       ticket.confirm);
    for (const std::string& line : finding.evidence) out << fmt::format("      - {}\n", line);
  }
  for (const Finding& finding : wrong_results)
    out << fmt::format("  {:<14} {:<56} {}\n", finding.kind, finding.subject, finding.evidence_text());
}

// Every measured row against the model's expectation of it, one line per op, size and placement.
void print_efficiency(std::ostream& out, std::span<const EfficiencySummary> summaries) {
  if (summaries.empty()) return;
  out << "# measured against the model's nominal link rates (pairs: each alone on its route); the findings above "
         "are against the calibrated scale instead\n";
  out << fmt::format("# {:<16} {:>10} {:>6} {:>12} {:>12} {:>8} {:>8}  {}\n", "op", "size", "rows", "expected",
                     "measured", "median%", "lowest%", "lowest row");
  for (const EfficiencySummary& s : summaries)
    out << fmt::format("  {:<16} {:>10} {:>6} {:>12} {:>12} {:>8.1f} {:>8.1f}  {}\n", s.op + (s.in_place ? " in" : ""),
                       s.bytes, s.rows, fmt::format("{:.4g} {}", s.median_expected, s.unit),
                       fmt::format("{:.4g} {}", s.median_measured, s.unit), s.median_efficiency_pct,
                       s.lowest_efficiency_pct, s.lowest_row);
}

nlohmann::json efficiency_json(std::span<const EfficiencySummary> summaries) {
  nlohmann::json json = nlohmann::json::array();
  for (const EfficiencySummary& s : summaries)
    json.push_back({{"op", s.op},
                    {"bytes", s.bytes},
                    {"in_place", s.in_place},
                    {"rows", s.rows},
                    {"unit", s.unit},
                    {"median_expected", s.median_expected},
                    {"median_measured", s.median_measured},
                    {"median_efficiency_pct", s.median_efficiency_pct},
                    {"lowest_efficiency_pct", s.lowest_efficiency_pct},
                    {"lowest_row", s.lowest_row}});
  return json;
}

nlohmann::json finding_json(const Finding& finding) {
  nlohmann::json json{{"kind", finding.kind}, {"subject", finding.subject}, {"evidence", {finding.evidence_text()}}};
  const std::string suffix = finding.unit == "GB/s" ? "_gbps" : finding.unit == "us" ? "_us" : "_" + finding.unit;
  if (finding.measured) json["measured" + suffix] = *finding.measured;
  if (finding.expected) json["expected" + suffix] = *finding.expected;
  return json;
}

// Without a topology the peers are the reference: a host whose pair measurements sit far below
// the others' (median absolute deviation) is named, with the wrong results.
int diagnose_without_topology(const DiagnoseOptions& options, const std::vector<ResultRow>& rows,
                              const std::vector<Finding>& drift) {
  std::vector<Finding> findings = find_wrong_results(rows);
  findings.insert(findings.end(), drift.begin(), drift.end());
  const std::vector<HostOutliers> outliers = find_slow_hosts(rows);
  std::cout << "# no topology given: slow hosts by the median absolute deviation of their pair measurements\n";
  for (const HostOutliers& o : outliers) {
    std::cout << fmt::format("# {} hosts compared on {} rows at {}; peer median {:.3g}; {} outlier{}\n", o.hosts,
                             o.rows, format_size_bytes(o.bytes), o.peer_median, o.findings.size(),
                             o.findings.size() == 1 ? "" : "s");
    findings.insert(findings.end(), o.findings.begin(), o.findings.end());
  }
  if (outliers.empty()) std::cout << "# no op with per-host rows of at least 3 hosts: no host compared\n";
  if (findings.empty()) std::cout << "# no findings\n";
  for (const Finding& finding : findings)
    std::cout << fmt::format("  {:<14} {:<56} {}\n", finding.kind, finding.subject, finding.evidence_text());
  if (!options.json_path.empty()) {
    nlohmann::json json{{"findings", nlohmann::json::array()}};
    for (const Finding& finding : findings) json["findings"].push_back(finding_json(finding));
    write_file_atomically(options.json_path, json.dump(1) + "\n");
  }
  return exit_code_for(options.fail_on, [&](const std::string&) { return !findings.empty(); });
}

// The hosts of the pair measurements: the confirm round can measure them again.
void write_confirm_plan(const std::string& path, const topo::Graph& graph, const Diagnosis& diagnosis,
                        const std::vector<ResultRow>& rows, const std::optional<topo::TableRouter>& router) {
  std::set<std::string> measured;
  for (const ResultRow& row : rows)
    if (is_pair_bandwidth_row(row)) measured.insert({row.src_host, row.dst_host});
  const ConfirmPlan plan =
      plan_confirm(graph, diagnosis, {measured.begin(), measured.end()}, router ? &*router : nullptr);
  write_file_atomically(path, format_pairs_file(plan));
  std::size_t pairs = 0;
  for (const auto& round : plan.rounds) pairs += round.size();
  std::cout << fmt::format(
      "# confirm round: {} pairs in {} rounds written to {} (fabricbench run pairwise --pairs {})\n", pairs,
      plan.rounds.size(), path, path);
  for (const std::string& note : plan.notes) std::cout << fmt::format("#   {}\n", note);
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): wires the diagnosis' optional inputs (store, topology, routes, job mix) to its outputs (console, JSON, confirm plan); each branch is one optional flag
int run_diagnose(const DiagnoseOptions& options) {
  std::vector<LoadedResults> sets =
      load_results(std::vector<std::filesystem::path>(options.results.begin(), options.results.end()));
  // The store's history: every host, pair and collective against its own baseline (history drift).
  std::optional<FleetDrift> fleet;
  if (!options.store_url.empty()) {
    store::RunStore store(options.store_url);
    fleet = judge_store(store, {});
    std::cout << fmt::format("# run store {}: {} hosts, {} pairs, {} collective series judged for drift\n",
                             store.name(), fleet->hosts.size(), fleet->pairs.size(), fleet->collectives.size());
  }
  const std::vector<Finding> drift = fleet ? drift_findings(*fleet) : std::vector<Finding>{};
  if (options.topology.empty() && !(options.routes_path.empty() && options.plan_confirm_path.empty()))
    throw UsageError("--routes and --plan-confirm need --topology (the fabric's ibnetdiscover output)");
  if (options.topology.empty()) return diagnose_without_topology(options, all_rows(sets), drift);
  const topo::Graph graph = load_topology_with_warnings(options.topology, options.topology_format);
  ExpectationColumns(graph, std::cerr).add(sets);
  std::optional<topo::ForwardingTables> tables;
  std::optional<topo::TableRouter> router;
  if (!options.routes_path.empty()) {
    tables = topo::load_forwarding_tables(options.routes_path, options.routes_format);
    router.emplace(graph, *tables);
  }
  const topo::TableRouter* routes = router ? &*router : nullptr;
  Diagnosis diagnosis = diagnose_against_topology(graph, sets, routes);
  const std::vector<MixedJob> mix = options.job_mix.empty() ? default_job_mix() : parse_job_mix(options.job_mix);
  const std::vector<std::optional<FaultCost>> costs = rank_by_cost(graph, diagnosis, mix, routes);
  const std::vector<ResultRow> rows = all_rows(sets);
  if (!options.plan_confirm_path.empty()) write_confirm_plan(options.plan_confirm_path, graph, diagnosis, rows, router);
  // Findings that are not the model's: wrong results, and drift against the store's history.
  std::vector<Finding> row_findings = find_wrong_results(rows);
  row_findings.insert(row_findings.end(), drift.begin(), drift.end());
  const std::vector<EfficiencySummary> efficiency = summarize_efficiency(rows);
  print_diagnosis(std::cout, graph, diagnosis, costs, describe_job_mix(mix), describe_cost_basis(routes),
                  all_incidents(sets).size(), row_findings);
  print_efficiency(std::cout, efficiency);
  if (!options.json_path.empty()) {
    nlohmann::json json = to_json(graph, diagnosis);
    json["job_mix"] = describe_job_mix(mix);
    json["cost_basis"] = describe_cost_basis(routes);
    for (std::size_t f = 0; f < costs.size(); ++f) {
      json["findings"][f]["rank"] = f + 1;
      if (costs[f]) json["findings"][f]["predicted_slowdown"] = costs[f]->slowdown;
    }
    json["efficiency"] = efficiency_json(efficiency);
    for (const Finding& finding : row_findings) json["findings"].push_back(finding_json(finding));
    write_file_atomically(options.json_path, json.dump(1) + "\n");
  }
  bool drained_hosts = false;
  if (!options.drain_list_path.empty()) {
    DrainList drain("diagnose");
    for (std::size_t f = 0; f < diagnosis.findings.size(); ++f)
      if (const std::string host = blamed_host(graph, diagnosis.findings[f]); !host.empty())
        drain.add(host, fmt::format("rank {}{}: {} {}", f + 1,
                                    costs[f] ? fmt::format(" ({:+.1f}% of the job mix)", 100 * costs[f]->slowdown) : "",
                                    diagnosis.findings[f].kind, diagnosis.findings[f].subject));
    if (fleet) add_drifted_hosts(*fleet, drain);
    drain.write(options.drain_list_path, std::cout);
    drained_hosts = !drain.empty();
  }
  const int fail_on_code = exit_code_for(options.fail_on, [&](const std::string&) {
    return !diagnosis.findings.empty() || !row_findings.empty();
  });
  if (fail_on_code != static_cast<int>(ExitCode::ok)) return fail_on_code;
  return static_cast<int>(drained_hosts ? ExitCode::doctor_flags : ExitCode::ok);
}

const Registrar<CommandRegistration> registrar{
    {"diagnose",
     "join pair measurements and incidents to the topology: degraded, blocking and failed links, slow nodes, wrong "
     "results",
     [](CLI::App& sub, const ProcessArguments&) -> std::function<int()> {
       auto options = std::make_shared<DiagnoseOptions>();
       sub.add_option("--results", options->results, "results files or directories (pairwise, concurrent runs)")
           ->required();
       sub.add_option("--topology", options->topology,
                      "topology files, merged (YAML spec, topo -m, NCCL XML, ...); without one, slow hosts are found "
                      "by the median absolute deviation among their peers");
       sub.add_option("--format", options->topology_format, "topology format, or auto to detect it")
           ->capture_default_str();
       sub.add_option("--json", options->json_path, "write the findings here as JSON");
       sub.add_option("--routes", options->routes_path,
                      "the fabric's forwarding tables (dump_fts, ibroute or OpenSM's opensm-lfts.dump; needs the "
                      "fabric's ibnetdiscover output among --topology): each pair on the path its packets take");
       sub.add_option("--routes-format", options->routes_format, "forwarding table format, or auto to detect it")
           ->capture_default_str();
       sub.add_option("--plan-confirm", options->plan_confirm_path,
                      "write the pairs that separate what the findings cannot tell apart (the cables of a bundle, a "
                      "node from its paths) for `run pairwise --pairs`");
       sub.add_option("--job-mix", options->job_mix,
                      "the jobs a fault's cost is predicted for, OP:SIZE,... across every node (default "
                      "all_reduce:1G,alltoall:1G); findings are ranked by it");
       add_fail_on_option(sub, options->fail_on, {{"findings", "any finding, wrong results included"}});
       sub.add_option("--drain-list", options->drain_list_path,
                      "write the hosts the findings blame and why to this file (HOST<TAB>REASON per line); exit 7 when "
                      "it lists a host");
       sub.add_option("--store", options->store_url,
                      "also judge this run store's history for drift (fabricbench history drift): drift findings, and "
                      "the hosts whose own series drifted on the drain list");
       return [options] { return run_diagnose(*options); };
     }}};

}  // namespace
}  // namespace fb::cli
