// `fabricbench report INPUT... -o report.html`: the self-contained HTML report of what
// diagnosis::judge_report made of the results: the acceptance checks (as `accept` judges them),
// the findings (as `diagnose` names them, from the same --topology, --routes and --job-mix), a
// comparison, plots and provenance.

#include "cli/command.hpp"
#include "cli/fail_on.hpp"
#include "cli/fabric_flags.hpp"
#include "common/errors.hpp"
#include "diagnosis/verdict.hpp"
#include "reports/html/fabric_drawing.hpp"
#include "reports/html/html_report.hpp"
#include "reports/html/svg_program.hpp"
#include "results/result_loading.hpp"
#include "results/results_io.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace fb::cli {

using diagnosis::VerdictStatus;
namespace {

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string output_path = "fabricbench-report.html";
  std::string thresholds_path;
  double confidence = 0.95;
  std::vector<std::string> compare;
  FabricSources fabric;
  std::vector<std::string> fail_on;
  std::string pdf_path;
};

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
  const LoadedFabric fabric = load_fabric(options.fabric);
  std::optional<diagnosis::Thresholds> thresholds;
  if (!options.thresholds_path.empty()) thresholds = diagnosis::read_thresholds(options.thresholds_path);
  diagnosis::ReportInputs judged_inputs{.fabric = fabric.inputs(input.sets),
                                        .thresholds = thresholds ? &*thresholds : nullptr,
                                        .confidence = options.confidence};
  if (!compared.empty()) {
    judged_inputs.compared.emplace(all_rows(load_results(paths_of({compared[0]}))),
                                   all_rows(load_results(paths_of({compared[1]}))));
    input.label_a = compared[0];
    input.label_b = compared[1];
  }
  input.judged = diagnosis::judge_report(judged_inputs);
  for (const std::string& warning : input.judged.fabric.warnings) std::cerr << warning << '\n';
  if (fabric.graph) {
    std::vector<std::string> subjects;
    for (const diagnosis::FindingTicket& ranked : input.judged.fabric.ranked)
      subjects.push_back(ranked.finding.subject);
    input.topology_dot = fabric_overview_dot(*fabric.graph, input.judged.fabric.flagged_links, subjects);
  }
  const std::string html = render_html_report(input);
  write_file_atomically(options.output_path, html);
  if (!options.pdf_path.empty()) write_file_atomically(options.pdf_path, print_html_to_pdf(html));
  const diagnosis::ReportVerdict& verdict = input.judged.verdict;
  std::cout << fmt::format("# report: {}{} ({} result sets)\n# verdict: {}\n", options.output_path,
                           options.pdf_path.empty() ? "" : " and " + options.pdf_path, input.sets.size(),
                           verdict_headline(verdict));
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
       sub.add_option("--thresholds", options->thresholds_path,
                      "acceptance thresholds (YAML) to judge the results by, as `accept` judges them");
       sub.add_option("--confidence", options->confidence, "each check's confidence, as `accept --confidence`")
           ->capture_default_str()
           ->check(CLI::Range(0.5, 0.999999));
       sub.add_option("--compare", options->compare, "result sets A and B to compare in the report")->expected(2);
       add_fabric_flags(sub, options->fabric);
       sub.add_option("--pdf", options->pdf_path, "also print the report to this PDF file (headless chromium)");
       add_fail_on_option(sub, options->fail_on,
                          {{"fail", "the verdict is FAIL: a check failed, or any finding"},
                           {"not-pass", "the verdict is FAIL, INCONCLUSIVE or NOT JUDGED (no thresholds given)"}});
       return [options] { return run_report(*options); };
     }}};

}  // namespace
}  // namespace fb::cli
