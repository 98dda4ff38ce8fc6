// `fabricbench compare A B`: two result sets side by side, ratio B/A per op and size.

#include "results/result_loading.hpp"
#include "cli/command.hpp"
#include "cli/fail_on.hpp"
#include "diagnosis/comparison.hpp"
#include "reports/compare/comparison_table.hpp"
#include "common/errors.hpp"
#include "results/results_io.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace fb::cli {

using diagnosis::Comparison;
using diagnosis::compare_results;
using diagnosis::count_regressions;
namespace {

struct CompareOptions {
  std::string a;
  std::string b;
  std::string csv_path;
  std::string json_path;
  std::vector<std::string> fail_on;
};

int run_compare(const CompareOptions& options) {
  const std::vector<ResultRow> a = all_rows(load_results({options.a}));
  const std::vector<ResultRow> b = all_rows(load_results({options.b}));
  const Comparison comparison = compare_results(a, b);
  if (comparison.ops.empty())
    throw InputError(
        fmt::format("{} and {} have no rows in common (op, type, placement, ranks, size)", options.a, options.b));
  // With the CSV on standard output, the table for a person goes to standard error.
  print_comparison(options.csv_path == "-" ? std::cerr : std::cout, comparison, options.a, options.b);
  if (!options.csv_path.empty()) write_file_atomically(options.csv_path, comparison_to_csv(comparison));
  if (!options.json_path.empty())
    write_file_atomically(options.json_path, comparison_to_json(comparison, options.a, options.b));
  return exit_code_for(options.fail_on, [&](const std::string& condition) {
    return condition == "noisy" ? count_too_noisy(comparison) > 0 : count_regressions(comparison) > 0;
  });
}

const Registrar<CommandRegistration> registrar{
    {"compare", "compare result sets A and B per op and size: ratio B/A, geometric mean, differences beyond the noise",
     [](CLI::App& sub, const ProcessArguments&) -> std::function<int()> {
       auto options = std::make_shared<CompareOptions>();
       sub.add_option("a", options->a, "result set A: a results file or directory")->required();
       sub.add_option("b", options->b, "result set B: a results file or directory")->required();
       sub.add_option("--csv", options->csv_path, "write the comparison as CSV here ('-': stdout)");
       sub.add_option("--json", options->json_path,
                      "write the comparison as JSON here (docs/schemas/compare.schema.json)");
       add_fail_on_option(sub, options->fail_on,
                          {{"regression", "B is slower than A beyond the spread at any size"},
                           {"noisy", "at some size the runs spread 100% or more: too noisy to compare"}});
       return [options] { return run_compare(*options); };
     }}};

}  // namespace
}  // namespace fb::cli
