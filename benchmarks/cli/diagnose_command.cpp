// `fabricbench diagnose --results PATH... --topology FILE...`: measured pair bandwidths joined to
// the model's routes, to name the degraded link, the blocking link or the slow node.

#include "analysis/drain_list.hpp"
#include "analysis/efficiency.hpp"
#include "analysis/finding.hpp"
#include "analysis/result_loading.hpp"
#include "cli/command.hpp"
#include "cli/expectation_columns.hpp"
#include "core/errors.hpp"
#include "results/results_io.hpp"
#include "topology/diagnosis.hpp"
#include "topology/format_registry.hpp"
#include "topology/incident_diagnosis.hpp"
#include "topology/intermittent_diagnosis.hpp"
#include "topology/port_diagnosis.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace fb::cli {
namespace {

struct DiagnoseOptions {
  std::vector<std::string> results;
  std::vector<std::string> topology;
  std::string topology_format = "auto";
  std::string json_path;
  std::string drain_list_path;
};

// The host a finding blames: its own host, or the host at either end of its link (a host's cable
// to its switch). A link between two switches blames no host.
std::string blamed_host(const topo::Graph& graph, const topo::DiagnosisFinding& finding) {
  if (!finding.host.empty()) return finding.host;
  if (!finding.link) return "";
  const topo::Link& link = graph.link(*finding.link);
  for (const topo::VertexId end : {link.a, link.b}) {
    const topo::VertexId host = graph.vertex(end).host;
    if (host != topo::no_vertex) return graph.vertex(host).name;
  }
  return "";
}

void print_diagnosis(std::ostream& out, const topo::Diagnosis& diagnosis, std::size_t incidents,
                     std::span<const Finding> wrong_results) {
  out << fmt::format("# {} pair measurements examined (each run's largest size); scale {:.4g} measured GB/s per "
                     "modelled GB/s; {} slow, {} explained by the findings\n",
                     diagnosis.flows_examined, diagnosis.calibration, diagnosis.slow_flows,
                     diagnosis.slow_flows_explained);
  if (incidents > 0) out << fmt::format("# {} incident{} (runs the watchdog ended)\n", incidents, incidents == 1 ? "" : "s");
  if (diagnosis.findings.empty() && wrong_results.empty()) {
    out << "# no findings\n";
    return;
  }
  out << fmt::format("# {:<14} {:<56} {:>12} {:>12} {:>7} {:>10}\n", "kind", "subject", "expected GB/s",
                     "measured GB/s", "ratio", "confidence");
  for (const topo::DiagnosisFinding& finding : diagnosis.findings) {
    // Findings from incidents have no bandwidth to compare.
    if (finding.expected_gbps > 0)
      out << fmt::format("  {:<14} {:<56} {:>12.4g} {:>12.4g} {:>7.3f} {:>10.2f}\n", finding.kind, finding.subject,
                         finding.expected_gbps, finding.measured_gbps, finding.ratio(), finding.confidence);
    else
      out << fmt::format("  {:<14} {:<56} {:>12} {:>12} {:>7} {:>10.2f}\n", finding.kind, finding.subject, "-", "-", "-",
                         finding.confidence);
    for (const std::string& line : finding.evidence) out << fmt::format("      {}\n", line);
  }
  for (const Finding& finding : wrong_results)
    out << fmt::format("  {:<14} {:<56} {}\n", finding.kind, finding.subject, finding.evidence);
}

// Every measured row against the model's expectation of it, one line per op, size and placement.
void print_efficiency(std::ostream& out, std::span<const EfficiencySummary> summaries) {
  if (summaries.empty()) return;
  out << "# measured against the model's expectation (pairs: each alone on its route)\n";
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

int run_diagnose(const DiagnoseOptions& options) {
  const topo::Graph graph = topo::load_topology(options.topology, options.topology_format);
  std::vector<LoadedResults> sets =
      load_results(std::vector<std::filesystem::path>(options.results.begin(), options.results.end()));
  ExpectationColumns(graph, std::cerr).add(sets);
  const std::vector<ResultRow> rows = all_rows(sets);
  topo::Diagnosis diagnosis = topo::diagnose(graph, rows);
  const std::vector<Incident> incidents = all_incidents(sets);
  for (topo::DiagnosisFinding& finding : topo::diagnose_incidents(graph, incidents))
    diagnosis.findings.push_back(std::move(finding));
  for (topo::DiagnosisFinding& finding : topo::diagnose_intermittent(rows)) diagnosis.findings.push_back(std::move(finding));
  for (const LoadedResults& set : sets)
    for (topo::DiagnosisFinding& finding :
         topo::diagnose_port_counters(graph, set.results.port_counters, set.results.rows))
      diagnosis.findings.push_back(std::move(finding));
  const std::vector<Finding> wrong_results = find_wrong_results(rows);
  const std::vector<EfficiencySummary> efficiency = summarize_efficiency(rows);
  print_diagnosis(std::cout, diagnosis, incidents.size(), wrong_results);
  print_efficiency(std::cout, efficiency);
  if (!options.json_path.empty()) {
    nlohmann::json json = topo::to_json(graph, diagnosis);
    json["efficiency"] = efficiency_json(efficiency);
    for (const Finding& finding : wrong_results)
      json["findings"].push_back({{"kind", finding.kind},
                                  {"subject", finding.subject},
                                  {"measured_gbps", finding.measured.value_or(0)},
                                  {"evidence", {finding.evidence}}});
    write_file_atomically(options.json_path, json.dump(1) + "\n");
  }
  if (!options.drain_list_path.empty()) {
    DrainList drain("diagnose");
    for (const topo::DiagnosisFinding& finding : diagnosis.findings)
      if (const std::string host = blamed_host(graph, finding); !host.empty())
        drain.add(host, fmt::format("{} {}", finding.kind, finding.subject));
    drain.write(options.drain_list_path, std::cout);
    if (!drain.empty()) return static_cast<int>(ExitCode::doctor_flags);
  }
  return static_cast<int>(ExitCode::ok);
}

const CommandRegistrar registrar{
    "diagnose",
    "join pair measurements and incidents to the topology: degraded, blocking and failed links, slow nodes, wrong "
    "results",
    [](CLI::App& sub) -> std::function<int()> {
      auto options = std::make_shared<DiagnoseOptions>();
      sub.add_option("--results", options->results, "results files or directories (pairwise, concurrent runs)")
          ->required();
      sub.add_option("--topology", options->topology, "topology files, merged (YAML spec, topo -m, NCCL XML, ...)")
          ->required();
      sub.add_option("--format", options->topology_format, "topology format, or auto to detect it")
          ->capture_default_str();
      sub.add_option("--json", options->json_path, "write the findings here as JSON");
      sub.add_option("--drain-list", options->drain_list_path,
                     "write the hosts the findings blame and why to this file (HOST<TAB>REASON per line); exit 7 when "
                     "it lists a host");
      return [options] { return run_diagnose(*options); };
    }};

}  // namespace
}  // namespace fb::cli
