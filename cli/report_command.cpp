// `fabricbench report INPUT... -o report.html`: the self-contained HTML report.

#include "diagnosis/acceptance.hpp"
#include "results/result_loading.hpp"
#include "cli/command.hpp"
#include "diagnosis/expectation_columns.hpp"
#include "diagnosis/fault_cost.hpp"
#include "diagnosis/repair_ticket.hpp"
#include "diagnosis/topology_diagnosis.hpp"
#include "cli/topology_input.hpp"
#include "cli/fail_on.hpp"
#include "common/errors.hpp"
#include "reports/html/fabric_drawing.hpp"
#include "reports/html/html_report.hpp"
#include "diagnosis/verdict.hpp"
#include "reports/html/svg_program.hpp"
#include "results/results_io.hpp"
#include "diagnosis/diagnosis.hpp"
#include "topology/format_registry.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace fb::cli {

using diagnosis::ExpectationColumns;
using diagnosis::Diagnosis;
using diagnosis::FaultCost;
using diagnosis::Finding;
using diagnosis::MixedJob;
using diagnosis::RepairTicket;
using diagnosis::default_job_mix;
using diagnosis::describe_job_mix;
using diagnosis::describe_cost_basis;
using diagnosis::rank_by_cost;
using diagnosis::repair_ticket;
using diagnosis::ReportVerdict;
using diagnosis::VerdictStatus;
using diagnosis::compare_results;
using diagnosis::diagnose_against_topology;
using diagnosis::evaluate_acceptance;
using diagnosis::read_thresholds;
namespace {

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string output_path = "fabricbench-report.html";
  std::string thresholds_path;
  std::vector<std::string> compare;
  std::vector<std::string> topology;
  std::vector<std::string> fail_on;
  std::string pdf_path;
};

// The topology drawn with the links that the diagnosis of the pair measurements names in red, and
// those findings beside the others in the report; rows without the model's expectation get it.
void add_topology(ReportInput& input, const std::vector<std::string>& topology_files) {
  const topo::Graph graph = load_topology_with_warnings(topology_files);
  ExpectationColumns(graph, std::cerr).add(input.sets);
  Diagnosis diagnosis = diagnose_against_topology(graph, input.sets);
  const std::vector<MixedJob> mix = default_job_mix();
  const std::vector<std::optional<FaultCost>> costs = rank_by_cost(graph, diagnosis, mix);
  std::vector<topo::LinkId> flagged;
  for (std::size_t f = 0; f < diagnosis.findings.size(); ++f) {
    Finding finding = diagnosis.findings[f];
    if (finding.link) flagged.push_back(*finding.link);
    flagged.insert(flagged.end(), finding.parallel_links.begin(), finding.parallel_links.end());
    // Rank and ticket first: what a technician reads before the measurements behind them.
    const RepairTicket ticket = repair_ticket(graph, finding);
    const std::vector<std::string> ticket_lines{
        fmt::format("rank {}: {}", f + 1,
                    costs[f] ? fmt::format("{:+.1f}% predicted for {} ({})", 100 * costs[f]->slowdown,
                                           describe_job_mix(mix), describe_cost_basis(nullptr))
                             : std::string("no predicted cost")),
        "where: " + ticket.location, "do: " + ticket.action, "confirm: " + ticket.confirm};
    finding.evidence.insert(finding.evidence.begin(), ticket_lines.begin(), ticket_lines.end());
    input.model_findings.push_back(std::move(finding));
  }
  std::vector<std::string> subjects;
  for (const Finding& finding : input.model_findings) subjects.push_back(finding.subject);
  input.topology_dot = fabric_overview_dot(graph, flagged, subjects);
}

std::vector<std::filesystem::path> paths_of(const std::vector<std::string>& texts) {
  return {texts.begin(), texts.end()};
}

int run_report(const ReportOptions& options) {
  ReportInput input;
  std::vector<std::string> inputs = options.inputs;
  std::vector<std::string> compared = options.compare;
  // Two directories and nothing else asked for: compare them (A first).
  if (compared.empty() && inputs.size() == 2 && std::filesystem::is_directory(inputs[0]) &&
      std::filesystem::is_directory(inputs[1]))
    compared = inputs;
  if (inputs.empty()) inputs = compared;
  if (inputs.empty()) throw UsageError("name the results to report on (files or directories), or --compare A B");
  input.sets = load_results(paths_of(inputs));
  if (!options.thresholds_path.empty())
    input.acceptance = evaluate_acceptance(read_thresholds(options.thresholds_path), all_rows(input.sets));
  if (!compared.empty()) {
    const std::vector<ResultRow> a = all_rows(load_results(paths_of({compared[0]})));
    const std::vector<ResultRow> b = all_rows(load_results(paths_of({compared[1]})));
    input.comparison = ReportComparison{compared[0], compared[1], compare_results(a, b)};
  }
  if (!options.topology.empty()) add_topology(input, options.topology);
  const std::string html = render_html_report(input);
  write_file_atomically(options.output_path, html);
  if (!options.pdf_path.empty()) write_file_atomically(options.pdf_path, print_html_to_pdf(html));
  const ReportVerdict verdict = verdict_of(input);
  std::cout << fmt::format("# report: {}{} ({} result sets)\n# verdict: {}\n", options.output_path,
                           options.pdf_path.empty() ? "" : " and " + options.pdf_path, input.sets.size(),
                           verdict.headline());
  return exit_code_for(options.fail_on, [&](const std::string& condition) {
    return condition == "fail" ? verdict.status == VerdictStatus::fail : verdict.status != VerdictStatus::pass;
  });
}

const Registrar<CommandRegistration> registrar{
    {"report", "write a self-contained HTML report: verdict, findings, plots per op, pairwise heatmap, provenance",
     [](CLI::App& sub, const ProcessArguments&) -> std::function<int()> {
       auto options = std::make_shared<ReportOptions>();
       sub.add_option("inputs", options->inputs, "results files or directories (two directories: compared, A then B)");
       sub.add_option("-o,--output", options->output_path, "the HTML file to write")->capture_default_str();
       sub.add_option("--thresholds", options->thresholds_path, "acceptance thresholds (YAML) to judge the results by");
       sub.add_option("--compare", options->compare, "result sets A and B to compare in the report")->expected(2);
       sub.add_option("--topology", options->topology,
                      "topology files: drawn with Graphviz, the links diagnosis names in red; rows get the "
                      "model's expectation");
       sub.add_option("--pdf", options->pdf_path, "also print the report to this PDF file (headless chromium)");
       add_fail_on_option(sub, options->fail_on,
                          {{"fail", "the verdict is FAIL: a check failed or was not available, or any finding"},
                           {"not-pass", "the verdict is FAIL or NOT JUDGED (no thresholds given)"}});
       return [options] { return run_report(*options); };
     }}};

}  // namespace
}  // namespace fb::cli
