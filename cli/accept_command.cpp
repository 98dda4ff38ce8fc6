// `fabricbench accept --thresholds FILE DIR...`: pass/fail per acceptance check, JUnit XML for CI,
// and an exit code a pipeline can branch on.

#include "diagnosis/acceptance.hpp"
#include "reports/acceptance/acceptance_json.hpp"
#include "reports/acceptance/junit_xml.hpp"
#include "diagnosis/drain_list.hpp"
#include "results/result_loading.hpp"
#include "cli/command.hpp"
#include "cli/store_baseline.hpp"
#include "common/errors.hpp"
#include "results/results_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>

namespace fb::cli {

using diagnosis::AcceptanceVerdict;
using diagnosis::CheckResult;
using diagnosis::CheckStatus;
using diagnosis::DrainList;
using diagnosis::Finding;
using diagnosis::Thresholds;
using diagnosis::evaluate_acceptance;
using diagnosis::read_thresholds;
using diagnosis::name_of;
namespace {

struct AcceptOptions {
  std::vector<std::string> inputs;
  std::string thresholds_path;
  std::string junit_path;
  std::string drain_list_path;
  std::string json_path;
  BaselineOptions baseline;
};

// The thresholds' verdict as a decision: a statistic never reported is INCONCLUSIVE, not a pass.
diagnosis::Decision decision_of(const AcceptanceVerdict& verdict) {
  if (verdict.passed()) return diagnosis::Decision::pass;
  const bool any_failed = std::any_of(verdict.results.begin(), verdict.results.end(),
                                      [](const CheckResult& r) { return r.status == CheckStatus::fail; });
  return any_failed ? diagnosis::Decision::fail : diagnosis::Decision::inconclusive;
}

void print_verdict(std::ostream& out, const AcceptanceVerdict& verdict) {
  out << fmt::format("# {:<40} {:<18} {:<6} {:>6}  {}\n", "check", "kind", "status", "rows", "summary");
  for (const CheckResult& r : verdict.results) {
    out << fmt::format("  {:<40} {:<18} {:<6} {:>6}  {}\n", r.check.name, name_of(r.check.kind), name_of(r.status),
                       r.rows_checked, r.summary);
    for (const Finding& f : r.findings) out << fmt::format("      {}: {}\n", f.subject, f.evidence_text());
  }
  const bool any_failed = std::any_of(verdict.results.begin(), verdict.results.end(),
                                      [](const CheckResult& r) { return r.status == CheckStatus::fail; });
  // A check whose statistic was never reported is not a pass: the verdict says so, exit code 6.
  out << fmt::format("# verdict: {}\n", verdict.passed() ? "PASS"
                                        : any_failed     ? "FAIL"
                                                     : "FAIL (not available: a checked statistic was never reported)");
}

// Both must pass; a failure anywhere fails; otherwise what the noise or a missing statistic left
// undecided is INCONCLUSIVE, never a pass.
diagnosis::Decision combined(diagnosis::Decision thresholds, diagnosis::Decision baseline) {
  using diagnosis::Decision;
  if (thresholds == Decision::fail || baseline == Decision::fail) return Decision::fail;
  return thresholds == Decision::pass && baseline == Decision::pass ? Decision::pass : Decision::inconclusive;
}

void write_threshold_outputs(const AcceptOptions& options, const AcceptanceVerdict& verdict) {
  if (!options.junit_path.empty())
    write_file_atomically(options.junit_path, acceptance_to_junit_xml(verdict, options.thresholds_path));
  if (!options.json_path.empty())
    write_file_atomically(options.json_path, acceptance_to_json(verdict, options.thresholds_path).dump(2) + "\n");
  if (options.drain_list_path.empty()) return;
  // Only a host outlier singles out a host; a slow pair or collective row involves several, and
  // `diagnose` is what tells which of them is at fault.
  DrainList drain("accept");
  for (const CheckResult& result : verdict.results)
    for (const Finding& finding : result.findings)
      if (finding.kind == "slow_host") drain.add(finding.subject, result.check.name + ": " + finding.evidence_text());
  drain.write(options.drain_list_path, std::cout);
}

int run_accept(const AcceptOptions& options) {
  if (options.thresholds_path.empty() && options.baseline.spec.empty())
    throw UsageError("accept: give --thresholds FILE, --baseline SPEC, or both");
  std::vector<std::filesystem::path> inputs(options.inputs.begin(), options.inputs.end());
  const std::vector<LoadedResults> sets = load_results(inputs);
  std::optional<AcceptanceVerdict> verdict;
  if (!options.thresholds_path.empty()) {
    verdict = evaluate_acceptance(read_thresholds(options.thresholds_path), all_rows(sets));
    print_verdict(std::cout, *verdict);
  }
  std::optional<store::RunStore> store;
  if (!options.baseline.spec.empty() || !options.baseline.store.empty())
    store.emplace(open_store(options.baseline, options.baseline.spec.empty()));
  std::optional<diagnosis::BaselineVerdict> baseline;
  if (!options.baseline.spec.empty()) {
    std::string description;
    baseline = judge_baseline(*store, options.baseline, sets, description);
    print_baseline(std::cout, *baseline, description);
  }
  const diagnosis::Decision decision = combined(verdict ? decision_of(*verdict) : diagnosis::Decision::pass,
                                                baseline ? baseline->decision : diagnosis::Decision::pass);
  if (verdict && baseline) std::cout << fmt::format("# accept: {} (thresholds and baseline)\n", name_of(decision));
  if (verdict) write_threshold_outputs(options, *verdict);
  if (!options.baseline.store.empty())
    record_judged(*store, sets, "accept", decision,
                  baseline ? baseline->statement : fmt::format("thresholds {}", options.thresholds_path), std::cout);
  return static_cast<int>(decision == diagnosis::Decision::pass ? ExitCode::ok : ExitCode::acceptance_failed);
}

const Registrar<CommandRegistration> registrar{
    {"accept", "check results against a YAML thresholds file: pass/fail table, JUnit XML, exit code 6 on failure",
     [](CLI::App& sub, const ProcessArguments&) -> std::function<int()> {
       auto options = std::make_shared<AcceptOptions>();
       sub.add_option("inputs", options->inputs, "results files or directories")->required();
       sub.add_option("--thresholds", options->thresholds_path, "acceptance thresholds (YAML)");
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
