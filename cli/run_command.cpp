// `fabricbench run OP...`: sweep sizes on a backend, print the table, keep the results on disk.

#include "benchmarks/core/backend.hpp"
#include "benchmarks/core/measurement_engine.hpp"
#include "benchmarks/core/memory_budget.hpp"
#include "benchmarks/core/run_plan.hpp"
#include "benchmarks/core/run_provenance.hpp"
#include "cli/command.hpp"
#include "diagnosis/expectation_columns.hpp"
#include "benchmarks/mpi/launcher_environment.hpp"
#include "jobs/port_counter_watch.hpp"
#include "jobs/run_sinks.hpp"
#include "store/run_store.hpp"
#include "cli/fabric_flags.hpp"
#include "common/errors.hpp"
#include "common/pair_schedule.hpp"
#include "common/text_file.hpp"
#include "common/host_environment.hpp"
#include "common/op_catalog.hpp"
#include "common/termination_signals.hpp"
#include "results/results_io.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace fb::cli {

using jobs::ConsoleSettings;
using jobs::ConsoleSink;
using jobs::PortCounterWatch;
using jobs::ResultsFileSink;
using jobs::parameters_of;

using diagnosis::ExpectationColumns;
namespace {

struct RunCommandOptions {
  RunOptions run;
  std::string backend = "mpi";
  std::string results_dir = "fabricbench-results";
  std::string csv_path;
  std::string json_path;
  std::vector<std::string> topology_files;
  bool progress = false;
  std::string sysfs_root = "/";
  std::string iterations;  // -n as typed: a count, "auto", or empty for each op's default
  int repeat = 0;          // soak: sweeps to run; 0: one, or as many as --duration allows
  std::string duration;    // soak: keep repeating the sweep until this much time has passed
  std::string host_pages{name_of(HostPages::huge)};
  std::string store_url;  // record the run in this run store when it ends
};

// "2h", "30m", "90s", "45" (seconds) -> seconds.
double parse_duration_s(const std::string& text) {
  std::size_t parsed = 0;
  double value = 0;
  try {
    value = std::stod(text, &parsed);
  } catch (const std::exception&) { parsed = 0; }
  const std::string unit = parsed == 0 ? "" : text.substr(parsed);
  const double scale = unit == "h" ? 3600 : unit == "m" ? 60 : unit == "s" || unit.empty() ? 1 : 0;
  if (parsed == 0 || scale == 0 || !(value > 0))
    throw UsageError(fmt::format("--duration {} is not a positive time such as 90s, 30m or 2h", text));
  return value * scale;
}

// -n: a count fixes the iterations of every op, "auto" lets every op run --min-time.
void apply_iterations_flag(const std::string& text, RunOptions& run) {
  if (text.empty()) return;
  if (text == "auto") {
    run.auto_iterations = true;
    return;
  }
  std::size_t parsed = 0;
  int count = 0;
  try {
    count = std::stoi(text, &parsed);
  } catch (const std::exception&) { parsed = 0; }
  if (parsed == 0 || parsed != text.size()) throw UsageError(fmt::format("-n {} is neither a count nor auto", text));
  run.iterations = count;
  run.auto_iterations = false;
}

// The ops of the catalog by kind, for --help: what the catalog holds is what `run` accepts.
std::string ops_help() {
  const std::pair<OpClass, std::string_view> kinds[] = {{OpClass::collective, "collectives"},
                                                        {OpClass::point_to_point, "point-to-point"},
                                                        {OpClass::pair_pattern, "pair patterns"},
                                                        {OpClass::device_copy, "device copies (cuda backend)"}};
  std::string help = "ops to run;";
  // Not a structured binding: a lambda capturing one is C++20 that clang 14 (clang-tidy) rejects.
  for (const auto& kind : kinds) {
    const OpClass op_class = kind.first;
    help += fmt::format("\n{}: {}", kind.second,
                        op_names([op_class](const OpTraits& op) { return op.op_class == op_class; }, " "));
  }
  return help;
}

std::string backends_help() {
  return "backend that runs the ops: " +
         joined(
             BackendRegistry::instance().listing(),
             [](const RegistryListing& backend) { return fmt::format("{}: {}", backend.name, backend.summary); }, "; ");
}

void add_flags(CLI::App& sub, RunCommandOptions& o) {
  sub.add_option("ops", o.run.op_names, ops_help())->required();
  sub.add_option("--backend", o.backend, backends_help())->capture_default_str();
  sub.add_option("-b,--minbytes", o.run.min_bytes, "smallest size (8, 64K, 32M, 1G); default 8 or the op's smallest");
  sub.add_option("-e,--maxbytes", o.run.max_bytes, "largest size")->capture_default_str();
  sub.add_option("-f,--stepfactor", o.run.step_factor, "multiply the size by this between steps")
      ->capture_default_str();
  sub.add_option("-i,--stepbytes", o.run.step_bytes, "add this to the size between steps (instead of -f)");
  sub.add_option("-n,--iters", o.iterations,
                 "timed iterations per size, or auto: as many as fill --min-time (at least 20); default auto for "
                 "point-to-point ops and pair patterns on the mpi backend, 20 otherwise");
  sub.add_option("--repeat", o.repeat, "soak: run the whole sweep this many times (rows carry their repetition)")
      ->check(CLI::PositiveNumber);
  sub.add_option("--duration", o.duration,
                 "soak: repeat the whole sweep until this much time has passed (90s, 30m, 2h)");
  sub.add_option("--min-time", o.run.min_time_s, "-n auto: seconds of timed iterations per size")
      ->capture_default_str();
  sub.add_option("--max-iters", o.run.max_auto_iterations, "-n auto: the most iterations per size")
      ->capture_default_str();
  sub.add_option("--host-pages", o.host_pages,
                 "pages behind host buffers of 64 KiB and more: huge (transparent huge pages, asked for with "
                 "madvise; steadier bandwidth) or base (4 KiB pages, as a plain malloc gets them where THP is not "
                 "`always`)")
      ->check(CLI::IsMember({std::string(name_of(HostPages::huge)), std::string(name_of(HostPages::base))}))
      ->capture_default_str();
  sub.add_option("-w,--warmup_iters", o.run.warmup_iterations, "untimed iterations before timing")
      ->capture_default_str();
  sub.add_option("-c,--check", o.run.check, "validate results element by element (0 or 1)")->capture_default_str();
  sub.add_option("-d,--datatype", o.run.dtype,
                 "element type: int8 uint8 int32 uint32 int64 uint64 half bfloat16 "
                 "float double")
      ->capture_default_str();
  sub.add_option("-o,--op", o.run.redop, "reduction op: sum prod min max")->capture_default_str();
  sub.add_option("-r,--root", o.run.root, "root rank of rooted ops")->capture_default_str();
  sub.add_option("--placement", o.run.placement, "both, out-of-place or in-place")->capture_default_str();
  sub.add_option("-W,--window", o.run.window, "messages in flight per iteration of bw and bibw")->capture_default_str();
  sub.add_option("--src", o.run.src_rank, "first rank of point-to-point ops")->capture_default_str();
  sub.add_option("--dst", o.run.dst_rank, "second rank of point-to-point ops")->capture_default_str();
  sub.add_option("-T,--timeout", o.run.timeout_s,
                 "seconds one step (an iteration) may take before the job is ended and the stuck ranks named; "
                 "0 derives it from the size (30 s + size at 50 MB/s)")
      ->capture_default_str();
  const std::string pair_patterns = op_names([](const OpTraits& op) { return op.op_class == OpClass::pair_pattern; });
  const std::string cut_patterns = op_names([](const OpTraits& op) { return measures_contention(op); });
  sub.add_option("--pair-endpoints", o.run.pair_endpoints,
                 pair_patterns + ": pair hosts (their first ranks) or every rank")
      ->capture_default_str();
  sub.add_option("--cut", o.run.cut, cut_patterns + ": halves (endpoint i with i + N/2) or random")
      ->capture_default_str();
  sub.add_option("--seed", o.run.seed, cut_patterns + " --cut random: seed of the matching")->capture_default_str();
  sub.add_option("--pairs", o.run.pairs_file,
                 "pairwise: measure only these host pairs (\"SRC DST\" per line, a blank line between rounds), such "
                 "as the confirm round `diagnose --plan-confirm` writes");
  sub.add_option("-g,--ngpus", o.run.launch.gpus_per_process, "GPUs each process drives (nccl backend)")
      ->capture_default_str();
  sub.add_option("-G,--cudagraph", o.run.launch.graph_launches,
                 "nccl backend: capture -n iterations in a CUDA graph and time this many replays of it (0: no graphs)")
      ->capture_default_str();
  sub.add_option("--watchdog-interface", o.run.launch.watchdog_interface,
                 "network interface (or IPv4 subnet a.b.c.d/n) for the watchdog's side channel; default: loopback "
                 "on one host, else the interface of Open MPI's oob/btl_tcp_if_include");
  sub.add_option("-D,--results-dir", o.results_dir, "directory for RUN_ID.csv and RUN_ID.json")->capture_default_str();
  sub.add_option("--csv", o.csv_path, "write the CSV results here instead");
  sub.add_option(
      "--store", o.store_url,
      "record the run in this run store when it ends (SQLite file or postgresql://...; fabricbench history)");
  sub.add_option("--json", o.json_path, "write the JSON results here instead");
  sub.add_option("--topology", o.topology_files,
                 "topology files (YAML spec, topo -m, NCCL XML, ...): every row carries the model's expectation "
                 "and the table a %exp column");
  sub.add_flag("--progress", o.progress,
               "report progress on stderr: each round of pair patterns (round k of N, elapsed, ETA) and each size of "
               "a sweep (size k of N, elapsed, ETA from a line through the sizes' times); on by default when stderr "
               "is a terminal");
  sub.add_option("--sysfs-root", o.sysfs_root,
                 "directory that sys/class/infiniband is read under for the RDMA port counters (a prepared tree "
                 "instead of each host's own)")
      ->capture_default_str();
}

class RunCommand {
 public:
  RunCommand(RunCommandOptions options, ProcessArguments process) : options_(std::move(options)), process_(process) {}

  // NOLINTNEXTLINE(readability-function-cognitive-complexity): the start-up sequence every rank walks in the same order (flags, backend, plan, memory, writers), each step ending the job everywhere with one exit code when it fails
  int run() {
    MeasurementSettings settings;
    settings.repeat = options_.repeat;
    // Errors every rank finds alike: each rank stops, the first one says why.
    try {
      apply_iterations_flag(options_.iterations, options_.run);
      options_.run.launch.host_pages =
          options_.host_pages == name_of(HostPages::base) ? HostPages::base : HostPages::huge;
      if (!options_.duration.empty()) settings.duration_s = parse_duration_s(options_.duration);
      if (options_.repeat > 0 && settings.duration_s > 0) throw UsageError("give --repeat or --duration, not both");
      validate_run_options(options_.run);
      if (!options_.store_url.empty()) (void)store::StoreUrl::parse(options_.store_url);
      BackendRegistry::instance().at(options_.backend).require_supported(options_.run.launch);
    } catch (const UsageError& e) { return fail_everywhere(e.what(), launcher_rank() == 0, ExitCode::usage); }
    if (const std::optional<int> nothing = measure_nothing_for_a_pairless_plan()) return *nothing;
    // Threads started from here on (MPI's, the watchdog's) inherit this mask, so a termination
    // signal can only reach this thread, which holds it back while it replaces a results file.
    std::optional<TerminationSignalsHeld> signals_held_during_startup(std::in_place);
    // MPI_Init may strip launcher arguments; provenance keeps the command line as typed.
    int backend_argc = process_.argc;
    char** backend_argv = process_.argv;
    try {
      backend_ =
          BackendRegistry::instance().at(options_.backend).factory(backend_argc, backend_argv, options_.run.launch);
    } catch (const UsageError& e) {  // every rank throws it (--watchdog-interface unknown on rank 0's host)
      return fail_everywhere(e.what(), launcher_rank() == 0, ExitCode::usage);
    }
    const RankPlacement& placement = backend_->placement();
    const bool reporting_rank = placement.rank == 0;

    // The size list's memory check reads this node's free memory, which ranks can see differently:
    // a rank that cannot plan tells the others, none is left waiting in the first collective.
    std::vector<PlannedOp> plan;
    std::string plan_error;
    try {
      plan = plan_run(options_.run, *backend_);
    } catch (const UsageError& e) { plan_error = e.what(); }
    if (!backend_->job().all_agree(plan_error.empty()))
      return fail_everywhere(plan_error.empty() ? "another rank cannot plan the run (its error is above)" : plan_error,
                             reporting_rank, ExitCode::usage);

    // Before any buffer exists, every rank checks that the ranks of its node fit in its memory.
    const NodeMemoryCheck memory =
        check_node_memory(plan, placement, backend_->buffers_in_host_memory(), available_memory());
    if (!backend_->job().all_agree(memory.error.empty()))
      return fail_everywhere(memory.error, !memory.error.empty() && memory.first_rank_of_node, ExitCode::usage);

    // Only the reporting rank writes; the others learn whether it can before anything is measured.
    std::string writer_error;
    ExitCode writer_error_code = ExitCode::usage;
    if (reporting_rank) {
      try {
        open_reporting_sinks(plan, settings);
      } catch (const InputError& e) {
        writer_error = e.what();
        writer_error_code = ExitCode::input;
      } catch (const std::exception& e) { writer_error = e.what(); }
    }
    signals_held_during_startup.reset();
    if (!backend_->job().all_agree(writer_error.empty()))
      return fail_everywhere(writer_error.empty() ? "the reporting rank cannot write results" : writer_error,
                             reporting_rank, writer_error_code);
    // Said once the run goes ahead: a run refused for its flags or files prints only why.
    if (const auto pages = backend_->host_buffer_pages(); reporting_rank && pages && pages->warning())
      std::cerr << fmt::format("fabricbench: warning: {}\n", *pages->warning());
    if (reporting_rank) warn_of_a_collective_on_one_rank(plan, placement.nranks);

    NullRowSink no_sink;
    MeasurementEngine engine(*backend_, reporting_sinks_ ? static_cast<RowSink&>(*reporting_sinks_) : no_sink,
                             std::move(settings));
    MeasurementOutcome outcome;
    try {
      PortCounterWatch port_counters(backend_->job(), backend_->placement(), options_.sysfs_root);
      outcome = engine.run(plan, port_counters);
    } catch (const std::exception& e) {
      // Seen by this rank alone: the others may wait for it forever, so end them all. A deadline
      // that a backend's own wait saw (a stream that never completed) is a timeout like the
      // watchdog's, exit 5, not a runtime error.
      std::cerr << fmt::format("fabricbench: rank {} on {}: {}\n", placement.rank,
                               placement.rank_hosts.at(static_cast<std::size_t>(placement.rank)), e.what());
      const ExitCode code = dynamic_cast<const TimeoutError*>(&e) ? ExitCode::timeout : ExitCode::runtime;
      if (placement.nranks > 1) backend_->job().abort_all(static_cast<int>(code));
      return static_cast<int>(code);
    }
    if (store_ && !record_in_store()) return static_cast<int>(ExitCode::runtime);
    return static_cast<int>(outcome.wrong_elements > 0 ? ExitCode::wrong_results : ExitCode::ok);
  }

 private:
  // A pairs file without a pair (diagnose --plan-confirm with nothing to confirm) asks for nothing:
  // every rank says so with the file's own notes and the run ends cleanly, measuring nothing.
  std::optional<int> measure_nothing_for_a_pairless_plan() const {
    if (options_.run.pairs_file.empty()) return std::nullopt;
    const std::optional<std::string> text = read_text(options_.run.pairs_file);
    if (!text) return std::nullopt;  // the plan reports the unreadable file with its usual error
    const std::optional<std::vector<std::string>> notes = notes_of_pairless_file(*text);
    if (!notes) return std::nullopt;
    if (launcher_rank() == 0) {
      std::cout << fmt::format("# {}: no pair to measure, nothing run\n", options_.run.pairs_file);
      for (const std::string& note : *notes) std::cout << fmt::format("#   {}\n", note);
    }
    return static_cast<int>(ExitCode::ok);
  }

  // A collective started without mpirun runs on one rank: it moves nothing between ranks, and its
  // rows would be taken for a measurement of the fabric.
  static void warn_of_a_collective_on_one_rank(const std::vector<PlannedOp>& plan, int nranks) {
    if (nranks != 1) return;
    std::vector<std::string_view> collectives;
    for (const PlannedOp& planned : plan)
      if (planned.op->op_class == OpClass::collective) collectives.push_back(planned.op->name);
    if (collectives.empty()) return;
    std::cerr << fmt::format("fabricbench: warning: {} on 1 rank moves no data between ranks (started without "
                             "mpirun?); start it with mpirun -np N to measure the fabric\n",
                             fmt::join(collectives, ", "));
  }

  int fail_everywhere(std::string_view message, bool prints, ExitCode code) {
    if (prints) std::cerr << fmt::format("fabricbench: error: {}\n", message);
    return static_cast<int>(code);
  }

  // The results files hold the run whatever happens here: a store that fails now loses nothing.
  bool record_in_store() {
    try {
      store_->record(results_sink_->results(), "run");
      std::cout << fmt::format("# recorded in the run store {}\n", store_->name());
      return true;
    } catch (const std::exception& e) {
      // The store's name is the URL without its password: the command works with PGPASSWORD or a passfile.
      std::cerr << fmt::format(
          "fabricbench: error: {}; the results files keep the run: fabricbench history ingest '{}' "
          "--store '{}'\n",
          e.what(), results_paths(results_sink_->results().provenance.run_id).json.string(), store_->name());
      return false;
    }
  }

  ResultsPaths results_paths(const std::string& run_id) const {
    const std::filesystem::path dir = options_.results_dir;
    return {options_.csv_path.empty() ? dir / (run_id + ".csv") : std::filesystem::path(options_.csv_path),
            options_.json_path.empty() ? dir / (run_id + ".json") : std::filesystem::path(options_.json_path)};
  }

  // The reporting rank's results files and console, and what only it knows: the run's
  // provenance and, with --topology, the model's expectation of every row.
  void open_reporting_sinks(const std::vector<PlannedOp>& plan, MeasurementSettings& settings) {
    // Opened before measuring, so a store that cannot be reached or is too new refuses the run now.
    if (!options_.store_url.empty()) store_ = std::make_unique<store::RunStore>(options_.store_url);
    if (!options_.topology_files.empty()) {
      topology_.emplace(load_topology_with_warnings(options_.topology_files));
      expectations_.emplace(*topology_, std::cerr);
    }
    const std::string run_id = new_run_id();
    settings.provenance =
        collect_provenance(*backend_, run_id, store::redacted_command_line(process_.argc, process_.argv));
    settings.provenance.gpus_per_process = options_.run.launch.gpus_per_process;
    std::size_t expected_rows = 0;
    for (const PlannedOp& planned : plan) expected_rows += planned.cases_by_size.size() * planned.placements.size();
    expected_rows *= static_cast<std::size_t>(std::max(options_.repeat, 1));
    results_sink_.emplace(results_paths(run_id), settings.provenance, expected_rows);
    const bool terminal = ::isatty(STDERR_FILENO) == 1;
    console_sink_.emplace(std::cout, std::cerr,
                          ConsoleSettings{.with_expectation = expectations_.has_value(),
                                          .round_progress = options_.progress || terminal,
                                          .progress_on_terminal = terminal,
                                          .results = results_paths(run_id),
                                          .parameters =
                                              parameters_of(plan, options_.run, backend_->placement().nranks)});
    reporting_sinks_.emplace(std::vector<RowSink*>{&*results_sink_, &*console_sink_});
    if (expectations_)
      settings.annotate_row = [this, provenance = settings.provenance](ResultRow& row) {
        expectations_->add(row, provenance);
      };
  }

  RunCommandOptions options_;
  ProcessArguments process_;
  std::unique_ptr<Backend> backend_;
  std::optional<topo::Graph> topology_;  // reporting rank, with --topology
  std::optional<ExpectationColumns> expectations_;
  std::optional<ResultsFileSink> results_sink_;  // reporting rank
  std::optional<ConsoleSink> console_sink_;
  std::optional<FanOutRowSink> reporting_sinks_;
  std::unique_ptr<store::RunStore> store_;  // reporting rank, with --store
};

const Registrar<CommandRegistration> registrar{
    {"run", "measure ops over a size sweep (nccl-tests flags), print a table, write CSV and JSON results",
     [](CLI::App& sub, const ProcessArguments& process) -> std::function<int()> {
       auto options = std::make_shared<RunCommandOptions>();
       add_flags(sub, *options);
       return [options, process] { return RunCommand(*options, process).run(); };
     }}};

}  // namespace
}  // namespace fb::cli
