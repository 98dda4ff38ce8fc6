// `fabricbench campaign PLAN.yaml`: the flags of an acceptance campaign; jobs/campaign/ runs it.

#include "cli/baseline_flags.hpp"
#include "cli/command.hpp"
#include "jobs/campaign/campaign_runner.hpp"

#include <memory>

namespace fb::cli {
namespace {

using jobs::CampaignOptions;

const Registrar<CommandRegistration> registrar{
    {"campaign",
     "run an acceptance campaign from a plan (YAML): doctor, pair patterns, collectives, soak; leaves a record "
     "(HTML, PDF), a JSON summary, JUnit and a drain list; resumes where it stopped",
     [](CLI::App& sub, const ProcessArguments& process) -> std::function<int()> {
       auto options = std::make_shared<CampaignOptions>();
       sub.add_option("plan", options->plan_path, "the campaign plan (YAML; see plans/ and docs/acceptance.md)")
           ->required();
       sub.add_option("-D,--results-dir", options->results_dir,
                      "folder for every stage's results and the record (default: the plan's results_dir)");
       sub.add_option("--json", options->json_path, "also write the JSON summary here (- for standard output)");
       sub.add_flag("!--no-pdf", options->pdf, "leave out the PDF record (it needs chromium)");
       sub.add_flag("--verbose", options->verbose,
                    "also print every stage's tables and the doctor's report (always in the stage's console.txt)");
       sub.add_flag("--dry-run", options->dry_run,
                    "read and check the plan and its thresholds, list the stages, measure nothing");
       add_baseline_flags(sub, options->baseline, "; also records every stage's runs and the campaign's verdict there");
       return [options, process] {
         options->argc = process.argc;
         options->argv = process.argv;
         return jobs::run_campaign(*options);
       };
     }}};

}  // namespace
}  // namespace fb::cli
