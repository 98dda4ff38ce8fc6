// `fabricbench accept --thresholds FILE DIR...`: the acceptance judgement of result sets
// (diagnosis/acceptance_judgement.hpp, the same a campaign makes of its rows): PASS, FAIL or
// INCONCLUSIVE per check with its confidence, JUnit XML for CI, and an exit code a pipeline can
// branch on.

#include "cli/command.hpp"
#include "cli/baseline_flags.hpp"
#include "reports/console/baseline_text.hpp"
#include "common/errors.hpp"
#include "diagnosis/acceptance_judgement.hpp"
#include "reports/acceptance/check_verdicts_output.hpp"
#include "results/result_loading.hpp"
#include "results/results_io.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace fb::cli {
namespace {

struct AcceptOptions {
  std::vector<std::string> inputs;
  std::string thresholds_path;
  double confidence = 0.95;
  std::string junit_path;
  std::string drain_list_path;
  std::string json_path;
  BaselineOptions baseline;
};

int run_accept(const AcceptOptions& options) {
  if (options.thresholds_path.empty() && options.baseline.spec.empty())
    throw UsageError("accept: give --thresholds FILE, --baseline SPEC, or both");
  const std::vector<LoadedResults> sets =
      load_results(std::vector<std::filesystem::path>(options.inputs.begin(), options.inputs.end()));
  const std::vector<ResultRow> rows = all_rows(sets);
  std::optional<diagnosis::Thresholds> thresholds;
  if (!options.thresholds_path.empty()) thresholds = diagnosis::read_thresholds(options.thresholds_path);
  std::optional<store::RunStore> store;
  if (!options.baseline.spec.empty() || !options.baseline.store.empty())
    store.emplace(open_store(options.baseline, options.baseline.spec.empty()));
  std::optional<diagnosis::BaselineVerdict> baseline;
  diagnosis::AcceptanceInputs inputs{.rows = rows,
                                     .thresholds = thresholds ? &*thresholds : nullptr,
                                     .confidence = options.confidence};
  if (!options.baseline.spec.empty()) {
    std::string description;
    baseline = judge_baseline(*store, options.baseline, sets, description);
    print_baseline(std::cout, *baseline, description);
    inputs.baseline = diagnosis::BaselineInput{&*baseline, description};
  }
  const diagnosis::AcceptanceJudgement judged = diagnosis::judge_acceptance(inputs, "accept");
  print_check_verdicts(std::cout, judged);
  if (!options.junit_path.empty())
    write_file_atomically(options.junit_path,
                          check_verdicts_junit_xml(judged.checks, "accept", options.thresholds_path));
  if (!options.json_path.empty())
    write_file_atomically(options.json_path,
                          acceptance_json(judged, options.thresholds_path, options.confidence).dump(2) + "\n");
  if (!options.drain_list_path.empty()) judged.drain.write(options.drain_list_path, std::cout);
  if (!options.baseline.store.empty())
    record_judged(*store, sets, "accept", judged.decision,
                  baseline ? baseline->statement : fmt::format("thresholds {}", options.thresholds_path), std::cout);
  return static_cast<int>(judged.decision == diagnosis::Decision::pass ? ExitCode::ok : ExitCode::acceptance_failed);
}

const Registrar<CommandRegistration> registrar{
    {"accept",
     "judge results against a YAML thresholds file: PASS, FAIL or INCONCLUSIVE per check with its confidence, JUnit "
     "XML, exit code 6 unless every check passed",
     [](CLI::App& sub, const ProcessArguments&) -> std::function<int()> {
       auto options = std::make_shared<AcceptOptions>();
       sub.add_option("inputs", options->inputs, "results files or directories")->required();
       sub.add_option("--thresholds", options->thresholds_path, "acceptance thresholds (YAML)");
       sub.add_option("--confidence", options->confidence,
                      "each verdict's confidence: false accepts and false rejects each at most (1 - c) / 2, as a "
                      "campaign plan's `confidence`")
           ->capture_default_str()
           ->check(CLI::Range(0.5, 0.999999));
       sub.add_option("--junit", options->junit_path, "write JUnit XML here for CI systems");
       sub.add_option("--json", options->json_path,
                      "write the verdict and every check as JSON here (docs/schemas/accept.schema.json)");
       sub.add_option(
           "--drain-list", options->drain_list_path,
           "write the hosts that failed a host-outlier check and why to this file (HOST<TAB>REASON per line)");
       add_baseline_flags(sub, options->baseline, "; also records the runs judged and the verdict there");
       return [options] { return run_accept(*options); };
     }}};

}  // namespace
}  // namespace fb::cli
