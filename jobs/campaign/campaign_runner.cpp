#include "benchmarks/core/backend.hpp"
#include "benchmarks/core/measurement_engine.hpp"
#include "benchmarks/core/memory_budget.hpp"
#include "benchmarks/core/run_plan.hpp"
#include "benchmarks/core/run_provenance.hpp"
#include "benchmarks/mpi/launcher_environment.hpp"
#include "jobs/campaign/campaign_folder.hpp"
#include "jobs/campaign/campaign_outputs.hpp"
#include "jobs/campaign/campaign_runner.hpp"
#include "jobs/campaign/campaign_plan.hpp"
#include "jobs/campaign/campaign_state.hpp"
#include "jobs/port_counter_watch.hpp"
#include "jobs/run_sinks.hpp"
#include "common/console_text.hpp"
#include "common/errors.hpp"
#include "common/host_environment.hpp"
#include "common/termination_signals.hpp"
#include "doctor/checks.hpp"
#include "doctor/doctor_report.hpp"
#include "doctor/host_inventory.hpp"
#include "doctor/inventory_json.hpp"
#include "results/result_loading.hpp"
#include "results/atomic_file.hpp"
#include "store/store_url.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

namespace fb::jobs {
namespace {

// Where a stage's tables and the doctor's report go: its folder's console.txt always (with the
// results, hashed when the stage ends), and with --verbose the console too. By default the console
// keeps to a screen: the stage lines, the checks and the verdict.
class StageConsole {
 public:
  StageConsole(const std::filesystem::path& file, bool verbose)
      : file_(file), tee_(file_.rdbuf(), verbose ? std::cout.rdbuf() : nullptr), out_(&tee_) {}
  std::ostream& out() { return out_; }

 private:
  class Tee final : public std::streambuf {
   public:
    Tee(std::streambuf* first, std::streambuf* second) : first_(first), second_(second) {}

   protected:
    int overflow(int c) override {
      if (c == traits_type::eof()) return traits_type::not_eof(c);
      const auto ch = traits_type::to_char_type(c);
      const bool ok = first_->sputc(ch) != traits_type::eof() && (!second_ || second_->sputc(ch) != traits_type::eof());
      return ok ? c : traits_type::eof();
    }
    std::streamsize xsputn(const char* text, std::streamsize count) override {
      const std::streamsize written = first_->sputn(text, count);
      if (second_) second_->sputn(text, count);
      return written;
    }
    int sync() override { return first_->pubsync() | (second_ ? second_->pubsync() : 0); }

   private:
    std::streambuf* first_;
    std::streambuf* second_;
  };

  std::ofstream file_;
  Tee tee_;
  std::ostream out_;
};

struct StageOutcome {
  StageStatus status = StageStatus::completed;
  std::string message;
};

// Whether the stage's last attempt left an incident: the watchdog ended the job under it.
bool results_hold_incident(const std::filesystem::path& folder) {
  if (!std::filesystem::is_directory(folder)) return false;
  try {
    return !all_incidents(load_results({folder})).empty();
  } catch (const std::exception&) {
    return false;  // nothing readable: the attempt was interrupted before its first size
  }
}

class Campaign {
 public:
  explicit Campaign(CampaignOptions options) : options_(std::move(options)) {}

  int run() {
    const bool prints = launcher_rank() == 0;
    try {
      plan_ = read_campaign_plan(options_.plan_path);
      if (!options_.results_dir.empty()) plan_.results_dir = options_.results_dir;
      BackendRegistry::instance().at(plan_.backend).require_supported(plan_.launch);
    } catch (const InputError& e) { return fail(e.what(), prints, ExitCode::input); } catch (const UsageError& e) {
      return fail(e.what(), prints, ExitCode::usage);
    }
    if (options_.dry_run) return describe_plan();
    std::optional<TerminationSignalsHeld> signals_held_during_startup(std::in_place);
    int argc = options_.argc;
    char** argv = options_.argv;
    backend_ = BackendRegistry::instance().at(plan_.backend).factory(argc, argv, plan_.launch);
    reporting_ = backend_->placement().rank == 0;

    // Rank 0 alone reads the state and the thresholds; the others follow its word.
    std::string error;
    ExitCode error_code = ExitCode::input;
    if (reporting_) {
      try {
        outputs_.emplace(plan_, options_.pdf, options_.json_path, options_.baseline);
        folder_lock_.emplace(plan_.results_dir);
        const std::filesystem::path state_file = plan_.results_dir / "campaign-state.json";
        refuse_outputs_without_state(plan_.results_dir, state_file);
        state_.emplace(state_file, outputs_->plan_sha256());
        state_->bind_thresholds(outputs_->thresholds_sha256());
      } catch (const InputError& e) { error = e.what(); } catch (const UsageError& e) {
        error = e.what();
        error_code = ExitCode::usage;
      } catch (const std::exception& e) {
        error = e.what();
        error_code = ExitCode::runtime;
      }
    }
    signals_held_during_startup.reset();
    // Every rank ends with rank 0's code, so the launcher's status does not depend on which exits first.
    const int startup_code =
        backend_->job().reporting_rank_value(static_cast<int>(error.empty() ? ExitCode::ok : error_code));
    if (startup_code != static_cast<int>(ExitCode::ok))
      return fail(error, reporting_, static_cast<ExitCode>(startup_code));
    if (reporting_)
      std::cout << fmt::format("# campaign: {} for {}, {} stages, results in {}\n", console_text(plan_.system),
                               console_text(plan_.customer), plan_.stages.size(),
                               console_text(plan_.results_dir.string()));

    for (std::size_t index = 0; index < plan_.stages.size(); ++index) run_stage_unless_done(plan_.stages[index], index);

    int exit_code = static_cast<int>(ExitCode::ok);
    if (reporting_) {
      try {
        exit_code = outputs_->write(*state_, std::cout);
      } catch (const InputError& e) {
        std::cerr << fmt::format("fabricbench: error: {}\n", e.what());
        exit_code = static_cast<int>(ExitCode::input);
      } catch (const std::exception& e) {
        std::cerr << fmt::format("fabricbench: error: {}\n", e.what());
        exit_code = static_cast<int>(ExitCode::runtime);
      }
    }
    // Every rank ends with rank 0's code (its verdict, or why it could not judge), so the launcher's
    // status says it whichever rank exits first.
    return backend_->job().reporting_rank_value(exit_code);
  }

 private:
  // --dry-run: the plan and its thresholds read and checked, the stages listed; nothing measured.
  int describe_plan() {
    try {
      const CampaignOutputs outputs(plan_, false, "");
      std::cout << fmt::format("# campaign: {} for {}, results in {}\n# plan SHA-256 {}\n", console_text(plan_.system),
                               console_text(plan_.customer), console_text(plan_.results_dir.string()),
                               outputs.plan_sha256());
      for (const CampaignStage& stage : plan_.stages) {
        std::string ops;
        for (const std::string& op : stage.run.op_names) ops += (ops.empty() ? "" : " ") + op;
        std::cout << fmt::format("  stage {:<20} {:<12} {}\n", stage.name, name_of(stage.kind),
                                 stage.kind == StageKind::doctor
                                     ? std::string("inventory of every host")
                                     : fmt::format("{}; {} to {}; {} repetitions{}", ops,
                                                   stage.run.min_bytes.empty() ? "8" : stage.run.min_bytes,
                                                   stage.run.max_bytes, stage.repetitions,
                                                   stage.duration_s > 0
                                                       ? fmt::format(" (soak: {:g} s)", stage.duration_s)
                                                       : ""));
      }
      std::cout << fmt::format("# checks: {} from {}{}\n", outputs.check_count(),
                               plan_.thresholds ? plan_.thresholds->string() : "no thresholds file",
                               plan_.model_checks ? ", and those the topology model derives" : "");
    } catch (const InputError& e) { return fail(e.what(), true, ExitCode::input); }
    return 0;
  }

  static int fail(std::string_view message, bool prints, ExitCode code) {
    if (prints) std::cerr << fmt::format("fabricbench: error: {}\n", message);
    return static_cast<int>(code);
  }

  // Rank 0's `value` on every rank: the others agree with anything.
  bool rank_zero_says(bool value) { return backend_->job().reporting_rank_value(value ? 1 : 0) != 0; }

  // `index`: the stage's place in the plan, printed as "stage n of m" so the console says how far along it is.
  void run_stage_unless_done(const CampaignStage& stage, std::size_t index) {
    bool needed = true;
    if (reporting_) {
      const StageState* earlier = state_->stage(stage.name);
      const bool incident = earlier && results_hold_incident(plan_.results_dir / earlier->results);
      needed = state_->needs_run(stage.name, incident);
      if (!needed) {
        const StageState& done = *state_->stage(stage.name);
        std::cout << fmt::format("# stage {}: {} at {}, not run again\n", stage.name, name_of(done.status),
                                 done.finished);
      }
    }
    if (!rank_zero_says(needed)) return;
    const StageState* earlier = reporting_ ? state_->stage(stage.name) : nullptr;
    const std::string folder = fmt::format("stages/{}/attempt-{}", stage.name, earlier ? earlier->attempts + 1 : 1);
    std::string folder_error;
    if (reporting_) {
      try {
        std::filesystem::create_directories(plan_.results_dir / folder);
      } catch (const std::filesystem::filesystem_error& e) { folder_error = e.what(); }
      state_->begin(stage.name, folder);
      std::cout << fmt::format("# stage {} ({}, {} of {}) at {}; its tables in {}\n", stage.name, name_of(stage.kind),
                               index + 1, plan_.stages.size(), state_->stage(stage.name)->started,
                               console_text((plan_.results_dir / folder / "console.txt").string()))
                << std::flush;
    }
    // Rank 0 alone makes the folder: the others learn of a failure here, not by waiting in the
    // stage's first collective for a rank that never comes.
    if (!rank_zero_says(folder_error.empty())) {
      if (reporting_) finish_stage(stage, {StageStatus::failed, "cannot create its results folder: " + folder_error});
      return;
    }
    const StageOutcome outcome = stage.kind == StageKind::doctor ? run_doctor(plan_.results_dir / folder)
                                                                 : run_measurements(stage, plan_.results_dir / folder);
    if (reporting_) finish_stage(stage, outcome);
  }

  void finish_stage(const CampaignStage& stage, const StageOutcome& outcome) {
    state_->finish(stage.name, outcome.status, outcome.message);
    std::cout << fmt::format("# stage {}: {}{}\n", stage.name, name_of(outcome.status),
                             outcome.message.empty() ? "" : ": " + outcome.message);
  }

  // The lowest rank of every host inspects it; rank 0 compares the hosts and keeps doctor.json.
  StageOutcome run_doctor(const std::filesystem::path& folder) {
    const RankPlacement& placement = backend_->placement();
    const auto& hosts = placement.rank_hosts;
    const auto self = static_cast<std::size_t>(placement.rank);
    const bool inspects =
        std::find(hosts.begin(), hosts.end(), hosts.at(self)) - hosts.begin() == static_cast<std::ptrdiff_t>(self);
    std::string payload;
    if (inspects) {
      try {
        doctor::HostInventory inventory = doctor::collect_host_inventory("/");
        const auto libraries = backend_->library_versions();
        if (const auto mpi = libraries.find("mpi_library"); mpi != libraries.end())
          inventory.versions.mpi_library = {mpi->second.substr(0, mpi->second.find(',')), "MPI_Get_library_version"};
        payload = nlohmann::json{{"inventory", inventory}}.dump();
      } catch (const std::exception& e) {
        payload = nlohmann::json{{"host", hosts.at(self)}, {"error", e.what()}}.dump();
      }
    }
    const std::vector<std::string> payloads = backend_->job().gather_at_reporting_rank(payload);
    if (!reporting_) return {};
    std::vector<doctor::HostInventory> inventories;
    std::string errors;
    for (const std::string& text : payloads) {
      if (text.empty()) continue;
      const nlohmann::json json = nlohmann::json::parse(text);
      if (json.contains("inventory"))
        inventories.push_back(json.at("inventory").get<doctor::HostInventory>());
      else
        errors += fmt::format("{}{}: {}", errors.empty() ? "" : "; ", json.at("host").get<std::string>(),
                              json.at("error").get<std::string>());
    }
    const std::vector<doctor::Flag> flags = doctor::check_hosts(inventories);
    StageConsole console(folder / "console.txt", options_.verbose);
    doctor::print_doctor_report(console.out(), inventories, flags, inventories.size() == 1);
    write_file_atomically(folder / "doctor.json", doctor::doctor_report_json(inventories, flags).dump(2) + "\n");
    if (!errors.empty()) return {StageStatus::failed, "hosts that could not be inspected: " + errors};
    const auto count = [&](doctor::Severity severity) {
      return std::count_if(flags.begin(), flags.end(), [&](const doctor::Flag& f) { return f.severity == severity; });
    };
    return {StageStatus::completed, fmt::format("{} hosts; {} errors, {} warnings", inventories.size(),
                                                count(doctor::Severity::error), count(doctor::Severity::warning))};
  }

  StageOutcome run_measurements(const CampaignStage& stage, const std::filesystem::path& folder) {
    RunOptions run = stage.run;
    run.launch = plan_.launch;
    std::vector<PlannedOp> planned;
    std::string plan_error;
    try {
      planned = plan_run(run, *backend_);
    } catch (const UsageError& e) { plan_error = e.what(); }
    // The stage is recorded as failed and the campaign goes on, on every rank: the size list's
    // memory check reads each node's free memory, which ranks can see differently.
    if (!backend_->job().all_agree(plan_error.empty()))
      return {StageStatus::failed, plan_error.empty() ? "another rank cannot plan the stage" : plan_error};
    const RankPlacement& placement = backend_->placement();
    const NodeMemoryCheck memory =
        check_node_memory(planned, placement, backend_->buffers_in_host_memory(), available_memory());
    if (!backend_->job().all_agree(memory.error.empty()))
      return {StageStatus::failed, memory.error.empty() ? "a node has too little memory for the stage" : memory.error};

    MeasurementSettings settings;
    settings.repeat = stage.duration_s > 0 ? 0 : stage.repetitions;
    settings.duration_s = stage.duration_s;
    std::optional<ResultsFileSink> results;
    std::optional<StageConsole> tables;
    std::optional<ConsoleSink> console;
    std::optional<FanOutRowSink> sinks;
    std::string writer_error;
    if (reporting_) {
      try {
        const std::string run_id = new_run_id();
        settings.provenance =
            collect_provenance(*backend_, run_id, store::redacted_command_line(options_.argc, options_.argv));
        settings.provenance.gpus_per_process = plan_.launch.gpus_per_process;
        const ResultsPaths paths{folder / (run_id + ".csv"), folder / (run_id + ".json")};
        std::size_t expected_rows = 0;
        for (const PlannedOp& op : planned) expected_rows += op.cases_by_size.size() * op.placements.size();
        results.emplace(paths, settings.provenance, expected_rows * static_cast<std::size_t>(stage.repetitions));
        const bool terminal = ::isatty(STDERR_FILENO) == 1;
        tables.emplace(folder / "console.txt", options_.verbose);
        console.emplace(tables->out(), std::cerr,
                        ConsoleSettings{.round_progress = true,
                                        .progress_on_terminal = terminal,
                                        .results = paths,
                                        .parameters = parameters_of(planned, run, placement.nranks)});
        sinks.emplace(std::vector<RowSink*>{&*results, &*console});
      } catch (const std::exception& e) { writer_error = e.what(); }
    }
    if (!backend_->job().all_agree(writer_error.empty()))
      return {StageStatus::failed, writer_error.empty() ? "rank 0 cannot write the stage's results" : writer_error};
    NullRowSink nothing;
    MeasurementEngine engine(*backend_, sinks ? static_cast<RowSink&>(*sinks) : nothing, std::move(settings));
    MeasurementOutcome outcome;
    try {
      PortCounterWatch port_counters(backend_->job(), placement, "/");
      outcome = engine.run(planned, port_counters);
    } catch (const std::exception& e) {
      // Seen by this rank alone: the others may wait for it forever. The job ends; the state file
      // says the stage was running, and the next run of the campaign decides what to do with it.
      std::cerr << fmt::format("fabricbench: rank {} on {}: stage {}: {}\n", placement.rank,
                               placement.rank_hosts.at(static_cast<std::size_t>(placement.rank)), stage.name, e.what());
      if (placement.nranks > 1) backend_->job().abort_all(static_cast<int>(ExitCode::runtime));
      return {StageStatus::failed, e.what()};
    }
    if (outcome.wrong_elements > 0)
      return {StageStatus::completed,
              fmt::format("{} wrong elements (the zero_wrong check judges them)", outcome.wrong_elements)};
    return {};
  }

  CampaignOptions options_;
  CampaignPlan plan_;
  std::unique_ptr<Backend> backend_;
  bool reporting_ = false;
  std::optional<CampaignFolderLock> folder_lock_;  // rank 0, for the whole campaign
  std::optional<CampaignOutputs> outputs_;         // rank 0
  std::optional<CampaignState> state_;             // rank 0
};

}  // namespace

int run_campaign(const CampaignOptions& options) { return Campaign(options).run(); }

}  // namespace fb::jobs
