// `fabricbench compare A B`: two result sets side by side, ratio B/A per op and size.

#include "results/result_loading.hpp"
#include "cli/command.hpp"
#include "cli/fail_on.hpp"
#include "cli/baseline_flags.hpp"
#include "reports/console/baseline_text.hpp"
#include "diagnosis/comparison.hpp"
#include "reports/compare/comparison_table.hpp"
#include "common/errors.hpp"
#include "results/results_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>

namespace fb::cli {

using diagnosis::Comparison;
using diagnosis::compare_results;
namespace {

struct CompareOptions {
  std::vector<std::string> inputs;  // A B, or B alone with --baseline
  BaselineOptions baseline;
  std::string csv_path;
  std::string json_path;
  std::vector<std::string> fail_on;
};

// `compare --baseline SPEC B`: B against the run store's history instead of one other set.
int compare_with_baseline(const CompareOptions& options) {
  if (!options.csv_path.empty() || !options.json_path.empty())
    throw UsageError("compare --baseline prints its table; --csv and --json are for two result sets");
  const std::vector<LoadedResults> b = load_results({options.inputs.front()});
  store::RunStore store = open_store(options.baseline, false);
  std::string description;
  const diagnosis::BaselineVerdict verdict = judge_baseline(store, options.baseline, b, description);
  print_baseline(std::cout, verdict, description);
  return exit_code_for(options.fail_on, [&](const std::string& condition) {
    const diagnosis::Decision decision =
        condition == "noisy" ? diagnosis::Decision::inconclusive : diagnosis::Decision::fail;
    return std::any_of(verdict.measurements.begin(), verdict.measurements.end(),
                       [&](const diagnosis::BaselineMeasurement& m) { return m.decision == decision; }) ||
           (condition == "noisy" && verdict.measurements.empty());
  });
}

int run_compare(const CompareOptions& options) {
  if (!options.baseline.spec.empty()) {
    if (options.inputs.size() != 1)
      throw UsageError("compare --baseline SPEC takes one result set (B): the baseline is A");
    return compare_with_baseline(options);
  }
  if (options.inputs.size() != 2) throw UsageError("compare takes two result sets, A and B (or --baseline SPEC B)");
  const std::string& name_a = options.inputs[0];
  const std::string& name_b = options.inputs[1];
  const std::vector<ResultRow> a = all_rows(load_results({name_a}));
  const std::vector<ResultRow> b = all_rows(load_results({name_b}));
  const Comparison comparison = compare_results(a, b);
  if (comparison.ops.empty())
    throw InputError(
        fmt::format("{} and {} have no rows in common (op, type, placement, ranks, size)", name_a, name_b));
  // With the CSV or the JSON on standard output (`-`), main has moved this table to standard error.
  print_comparison(std::cout, comparison, name_a, name_b);
  if (!options.csv_path.empty()) write_file_atomically(options.csv_path, comparison_to_csv(comparison));
  if (!options.json_path.empty())
    write_file_atomically(options.json_path, comparison_to_json(comparison, name_a, name_b));
  return exit_code_for(options.fail_on, [&](const std::string& condition) {
    return condition == "noisy" ? comparison.too_noisy > 0 : comparison.regressions > 0;
  });
}

const Registrar<CommandRegistration> registrar{
    {"compare", "compare result sets A and B per op and size: ratio B/A, geometric mean, differences beyond the noise",
     [](CLI::App& sub, const ProcessArguments&) -> std::function<int()> {
       auto options = std::make_shared<CompareOptions>();
       sub.add_option("sets", options->inputs,
                      "result sets A and B (results files or directories); with --baseline, B alone")
           ->required()
           ->expected(1, 2);
       sub.add_option("--csv", options->csv_path, "write the comparison as CSV here ('-': stdout)");
       sub.add_option("--json", options->json_path,
                      "write the comparison as JSON here (docs/schemas/compare.schema.json)");
       add_fail_on_option(sub, options->fail_on,
                          {{"regression", "B is slower than A beyond the spread at any size"},
                           {"noisy", "at some size the runs spread 100% or more: too noisy to compare (with "
                                     "--baseline: a measurement the noise cannot decide)"}});
       add_baseline_flags(sub, options->baseline, "");
       return [options] { return run_compare(*options); };
     }}};

}  // namespace
}  // namespace fb::cli
