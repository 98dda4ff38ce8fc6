// `fabricbench diagnose --results PATH... [--topology FILE...]`: measured pair bandwidths joined to
// the model's routes, to name the degraded link, the blocking link or the slow node. The judgement
// is diagnosis::judge_fabric's; this file reads the inputs and renders what it returns.

#include "cli/command.hpp"
#include "cli/fail_on.hpp"
#include "history/fleet_drift.hpp"
#include "cli/fabric_flags.hpp"
#include "common/errors.hpp"
#include "diagnosis/fabric_judgement.hpp"
#include "reports/console/fabric_text.hpp"
#include "reports/json/fabric_json.hpp"
#include "results/result_loading.hpp"
#include "results/results_io.hpp"
#include "topology/forwarding_tables.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>

namespace fb::cli {

using history::FleetDrift;
using history::drift_findings;
using history::drifted_hosts;
using history::judge_store;
namespace {

struct DiagnoseOptions {
  std::vector<std::string> results;
  FabricSources fabric;
  std::string json_path;
  std::vector<std::string> fail_on;
  std::string drain_list_path;
  std::string plan_confirm_path;
  std::string store_url;  // also judge this run store's history for drift
};

void write_confirm_plan(const std::string& path, const diagnosis::ConfirmPlan& plan) {
  write_file_atomically(path, diagnosis::format_pairs_file(plan));
  std::size_t pairs = 0;
  for (const auto& round : plan.rounds) pairs += round.size();
  std::cout << fmt::format(
      "# confirm round: {} pairs in {} rounds written to {} (fabricbench run pairwise --pairs {})\n", pairs,
      plan.rounds.size(), path, path);
  for (const std::string& note : plan.notes) std::cout << fmt::format("#   {}\n", note);
}

int run_diagnose(const DiagnoseOptions& options) {
  std::vector<LoadedResults> sets =
      load_results(std::vector<std::filesystem::path>(options.results.begin(), options.results.end()));
  if (options.fabric.topology.empty() && !(options.fabric.routes_path.empty() && options.plan_confirm_path.empty()))
    throw UsageError("--routes and --plan-confirm need --topology (the fabric's ibnetdiscover output)");
  LoadedFabric fabric = load_fabric(options.fabric);
  diagnosis::FabricInputs inputs = fabric.inputs(sets);
  inputs.plan_confirm = !options.plan_confirm_path.empty();
  // The store's history: every host, pair and collective against its own baseline (history drift).
  if (!options.store_url.empty()) {
    store::RunStore store(options.store_url);
    const FleetDrift fleet = judge_store(store, {});
    std::cout << fmt::format("# run store {}: {} hosts, {} pairs, {} collective series judged for drift\n",
                             store.name(), fleet.hosts.size(), fleet.pairs.size(), fleet.collectives.size());
    inputs.drift = drift_findings(fleet);
    inputs.drifted_hosts = drifted_hosts(fleet);
  }
  const diagnosis::FabricJudgement judged = diagnosis::judge_fabric(inputs, "diagnose");
  for (const std::string& warning : judged.warnings) std::cerr << warning << '\n';
  if (judged.confirm_plan) write_confirm_plan(options.plan_confirm_path, *judged.confirm_plan);
  print_fabric_judgement(std::cout, judged);
  if (!options.json_path.empty())
    write_file_atomically(options.json_path, fabric_judgement_json(judged).dump(1) + "\n");
  if (!options.drain_list_path.empty()) judged.drain.write(options.drain_list_path, std::cout);
  const int fail_on_code = exit_code_for(options.fail_on, [&](const std::string&) { return judged.any_finding(); });
  if (fail_on_code != static_cast<int>(ExitCode::ok)) return fail_on_code;
  const bool drained_hosts = !options.drain_list_path.empty() && !judged.drain.empty();
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
       add_fabric_flags(sub, options->fabric);
       sub.add_option("--json", options->json_path, "write the findings here as JSON");
       sub.add_option("--plan-confirm", options->plan_confirm_path,
                      "write the pairs that separate what the findings cannot tell apart (the cables of a bundle, a "
                      "node from its paths) for `run pairwise --pairs`");
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
