// `fabricbench run OP...`: sweep sizes on a backend, print the table, keep the results on disk.

#include "reports/analysis/efficiency.hpp"
#include "cli/command.hpp"
#include "cli/expectation_columns.hpp"
#include "cli/launcher.hpp"
#include "cli/topology_input.hpp"
#include "cli/port_counter_watch.hpp"
#include "reports/console/console_table.hpp"
#include "reports/console/round_progress.hpp"
#include "benchmarks/core/backend.hpp"
#include "common/errors.hpp"
#include "benchmarks/core/incident_builder.hpp"
#include "benchmarks/core/memory_budget.hpp"
#include "common/op_catalog.hpp"
#include "benchmarks/core/result_builder.hpp"
#include "benchmarks/core/run_plan.hpp"
#include "benchmarks/core/run_provenance.hpp"
#include "common/host_environment.hpp"
#include "common/termination_signals.hpp"
#include "results/results_io.hpp"
#include "topology/format_registry.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>

#include <iostream>
#include <memory>
#include <optional>
#include <set>

namespace fb::cli {
namespace {

// What the termination-signal handler prints: composed before the handler is installed, because
// a handler may only make async-signal-safe calls.
std::array<char, 2048> interrupted_message{};
std::size_t interrupted_message_length = 0;

extern "C" void end_on_termination_signal(int signal_number) {
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, interrupted_message.data(), interrupted_message_length);
  remove_shadow_files_from_signal_handler();
  ::_exit(128 + signal_number);
}

// Results reach the disk after every size, so ending at once loses only the size in flight.
// The files are never half-written, nor one a size behind the other: ResultsWriter holds these
// signals back while it publishes them.
void end_cleanly_on_termination_signals(const ResultsPaths& paths) {
  const std::string message = fmt::format("fabricbench: interrupted; every completed size is in {} and {}\n",
                                          paths.csv.string(), paths.json.string());
  interrupted_message_length = std::min(message.size(), interrupted_message.size());
  std::copy_n(message.begin(), interrupted_message_length, interrupted_message.begin());
  struct sigaction action {};
  action.sa_handler = end_on_termination_signal;
  sigemptyset(&action.sa_mask);
  const sigset_t signals = termination_signals();
  for (int signal_number = 1; signal_number < NSIG; ++signal_number)
    if (sigismember(&signals, signal_number) == 1) ::sigaction(signal_number, &action, nullptr);
}

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
};

// "2h", "30m", "90s", "45" (seconds) -> seconds.
double parse_duration_s(const std::string& text) {
  std::size_t parsed = 0;
  double value = 0;
  try {
    value = std::stod(text, &parsed);
  } catch (const std::exception&) {
    parsed = 0;
  }
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
  } catch (const std::exception&) {
    parsed = 0;
  }
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
  for (const auto& [op_class, kind] : kinds) {
    help += fmt::format("\n{}:", kind);
    for (const OpTraits& op : all_ops())
      if (op.op_class == op_class) help += fmt::format(" {}", op.name);
  }
  return help;
}

void add_flags(CLI::App& sub, RunCommandOptions& o) {
  sub.add_option("ops", o.run.op_names, ops_help())->required();
  sub.add_option("--backend", o.backend, "backend that runs the ops")->capture_default_str();
  sub.add_option("-b,--minbytes", o.run.min_bytes, "smallest size (8, 64K, 32M, 1G); default 8 or the op's smallest");
  sub.add_option("-e,--maxbytes", o.run.max_bytes, "largest size")->capture_default_str();
  sub.add_option("-f,--stepfactor", o.run.step_factor, "multiply the size by this between steps")->capture_default_str();
  sub.add_option("-i,--stepbytes", o.run.step_bytes, "add this to the size between steps (instead of -f)");
  sub.add_option("-n,--iters", o.iterations,
                 "timed iterations per size, or auto: as many as fill --min-time (at least 20); default auto for "
                 "point-to-point ops and pair patterns on the mpi backend, 20 otherwise");
  sub.add_option("--repeat", o.repeat, "soak: run the whole sweep this many times (rows carry their repetition)")
      ->check(CLI::PositiveNumber);
  sub.add_option("--duration", o.duration, "soak: repeat the whole sweep until this much time has passed (90s, 30m, 2h)");
  sub.add_option("--min-time", o.run.min_time_s, "-n auto: seconds of timed iterations per size")->capture_default_str();
  sub.add_option("--max-iters", o.run.max_auto_iterations, "-n auto: the most iterations per size")
      ->capture_default_str();
  sub.add_option("-w,--warmup_iters", o.run.warmup_iterations, "untimed iterations before timing")->capture_default_str();
  sub.add_option("-c,--check", o.run.check, "validate results element by element (0 or 1)")->capture_default_str();
  sub.add_option("-d,--datatype", o.run.dtype, "element type: int8 uint8 int32 uint32 int64 uint64 half bfloat16 "
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
  sub.add_option("--pair-endpoints", o.run.pair_endpoints,
                 "pairwise and concurrent: pair hosts (their first ranks) or every rank")
      ->capture_default_str();
  sub.add_option("--cut", o.run.cut, "concurrent: halves (endpoint i with i + N/2) or random")->capture_default_str();
  sub.add_option("--seed", o.run.seed, "concurrent --cut random: seed of the matching")->capture_default_str();
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
  sub.add_option("--json", o.json_path, "write the JSON results here instead");
  sub.add_option("--topology", o.topology_files,
                 "topology files (YAML spec, topo -m, NCCL XML, ...): every row carries the model's expectation "
                 "and the table a %exp column");
  sub.add_flag("--progress", o.progress,
               "report each round of pair patterns (round k of N, elapsed, ETA) on stderr; on by default when stderr "
               "is a terminal");
  sub.add_option("--sysfs-root", o.sysfs_root,
                 "directory that sys/class/infiniband is read under for the RDMA port counters (a prepared tree "
                 "instead of each host's own)")
      ->capture_default_str();
}

class RunCommand {
 public:
  RunCommand(RunCommandOptions options, ProcessArguments process) : options_(std::move(options)), process_(process) {}

  int run() {
    // Errors every rank finds alike: each rank stops, the first one says why.
    try {
      apply_iterations_flag(options_.iterations, options_.run);
      if (!options_.duration.empty()) duration_s_ = parse_duration_s(options_.duration);
      if (options_.repeat > 0 && duration_s_ > 0) throw UsageError("give --repeat or --duration, not both");
      validate_run_options(options_.run);
      BackendRegistry::instance().at(options_.backend).require_supported(options_.run.launch);
    } catch (const UsageError& e) {
      return fail_everywhere(e.what(), launcher_rank() == 0, ExitCode::usage);
    }
    // Threads started from here on (MPI's, the watchdog's) inherit this mask, so a termination
    // signal can only reach this thread, which holds it back while it replaces a results file.
    std::optional<TerminationSignalsHeld> signals_held_during_startup(std::in_place);
    // MPI_Init may strip launcher arguments; provenance keeps the command line as typed.
    int backend_argc = process_.argc;
    char** backend_argv = process_.argv;
    backend_ =
        BackendRegistry::instance().at(options_.backend).factory(backend_argc, backend_argv, options_.run.launch);
    const RankPlacement& placement = backend_->placement();
    const bool reporting_rank = placement.rank == 0;

    std::vector<PlannedOp> plan;
    try {
      plan = plan_run(options_.run, *backend_);
    } catch (const UsageError& e) {
      return fail_everywhere(e.what(), reporting_rank, ExitCode::usage);
    }

    // Before any buffer exists, every rank checks that the ranks of its node fit in its memory;
    // the first rank of a node that lacks it says why.
    std::string memory_error;
    const std::string& host = placement.rank_hosts.at(static_cast<std::size_t>(placement.rank));
    std::vector<int> ranks_on_host;
    for (int rank = 0; rank < placement.nranks; ++rank)
      if (placement.rank_hosts.at(static_cast<std::size_t>(rank)) == host) ranks_on_host.push_back(rank);
    if (const std::optional<AvailableMemory> available = available_memory()) {
      try {
        require_memory_for(plan, placement.rank, placement.nranks, host, ranks_on_host,
                           backend_->buffers_in_host_memory(), *available);
      } catch (const UsageError& e) {
        memory_error = e.what();
      }
    }
    if (!backend_->all_agree(memory_error.empty()))
      return fail_everywhere(memory_error, !memory_error.empty() && ranks_on_host.front() == placement.rank,
                             ExitCode::usage);

    // Only the reporting rank writes; the others learn whether it can before anything is measured.
    std::optional<ResultsWriter> writer;
    std::string writer_error;
    ExitCode writer_error_code = ExitCode::usage;
    if (reporting_rank) {
      try {
        if (!options_.topology_files.empty()) {
          topology_.emplace(load_topology_with_warnings(options_.topology_files));
          expectations_.emplace(*topology_, std::cerr);
        }
        const std::string run_id = new_run_id();
        std::size_t expected_rows = 0;
        for (const PlannedOp& planned : plan) expected_rows += planned.cases_by_size.size() * planned.placements.size();
        expected_rows *= static_cast<std::size_t>(std::max(options_.repeat, 1));
        writer.emplace(results_paths(run_id),
                       collect_provenance(*backend_, run_id, shell_command_line(process_.argc, process_.argv)),
                       expected_rows);
        end_cleanly_on_termination_signals(writer->paths());
      } catch (const InputError& e) {
        writer_error = e.what();
        writer_error_code = ExitCode::input;
      } catch (const std::exception& e) {
        writer_error = e.what();
      }
    }
    signals_held_during_startup.reset();
    if (!backend_->all_agree(writer_error.empty()))
      return fail_everywhere(writer_error.empty() ? "the reporting rank cannot write results" : writer_error,
                             reporting_rank, writer_error_code);

    try {
      PortCounterWatch port_counters(*backend_, options_.sysfs_root);
      measure_repetitions(plan, writer ? &*writer : nullptr);
      std::vector<PortCounterChange> port_changes = port_counters.finish();
      if (writer) record_port_counters(std::move(port_changes), *writer);
    } catch (const std::exception& e) {
      // Seen by this rank alone: the others may wait for it forever, so end them all.
      std::cerr << fmt::format("fabricbench: rank {} on {}: {}\n", placement.rank,
                               placement.rank_hosts.at(static_cast<std::size_t>(placement.rank)), e.what());
      if (placement.nranks > 1) backend_->abort_all(static_cast<int>(ExitCode::runtime));
      return static_cast<int>(ExitCode::runtime);
    }
    return static_cast<int>(any_wrong_ ? ExitCode::wrong_results : ExitCode::ok);
  }

 private:
  int fail_everywhere(std::string_view message, bool prints, ExitCode code) {
    if (prints) std::cerr << fmt::format("fabricbench: error: {}\n", message);
    return static_cast<int>(code);
  }

  ResultsPaths results_paths(const std::string& run_id) const {
    const std::filesystem::path dir = options_.results_dir;
    return {options_.csv_path.empty() ? dir / (run_id + ".csv") : std::filesystem::path(options_.csv_path),
            options_.json_path.empty() ? dir / (run_id + ".json") : std::filesystem::path(options_.json_path)};
  }

  // Soak: the sweep again and again, each repetition's rows marked with it, until --repeat
  // sweeps ran or --duration passed. Rank 0's clock decides for every rank.
  void measure_repetitions(const std::vector<PlannedOp>& plan, ResultsWriter* writer) {
    const bool soak = options_.repeat > 1 || duration_s_ > 0;
    const auto start = std::chrono::steady_clock::now();
    if (writer) print_provenance(std::cout, writer->results().provenance);
    for (int repetition = 0;; ++repetition) {
      if (soak) {
        repetition_ = repetition;
        if (writer) std::cout << fmt::format("# repetition {} at {}\n", repetition, utc_timestamp_now());
      }
      measure_plan(plan, writer);
      const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const bool more = options_.repeat > 0 ? repetition + 1 < options_.repeat : elapsed_s < duration_s_;
      if (!backend_->all_agree(backend_->placement().rank != 0 || more)) break;
    }
  }

  void measure_plan(const std::vector<PlannedOp>& plan, ResultsWriter* writer) {
    const RunContext context{writer ? writer->results().provenance.run_id : "", std::string(backend_->name()),
                             backend_->placement()};
    if (writer)
      backend_->set_stall_handler([this, context, writer](const StallReport& stall) { record_timeout(stall, context, *writer); });
    for (const PlannedOp& planned : plan) {
      if (planned.op->op_class == OpClass::pair_pattern || planned.op->op_class == OpClass::device_copy) {
        measure_pair_pattern(planned, context, writer);
        continue;
      }
      std::vector<bool> groups;
      for (Placement placement : planned.placements) groups.push_back(placement == Placement::in_place);
      const ConsoleTable table(std::cout, groups, expectations_.has_value());
      if (writer) table.print_header(planned.op->name);
      for (const auto& cases : planned.cases_by_size) {
        std::vector<ResultRow> rows;
        for (const BenchmarkCase& benchmark_case : cases) {
          in_flight_.set(benchmark_case);
          const Measurement measurement = backend_->measure(benchmark_case);
          any_wrong_ = any_wrong_ || measurement.wrong.value_or(0) > 0;
          if (!writer) continue;
          rows.push_back(with_expectation(make_result_row(benchmark_case, measurement, context), *writer));
          writer->append(rows.back());
        }
        if (!writer) continue;
        writer->flush();
        table.print_size(rows);
      }
    }
    if (writer) {
      print_summary(std::cout, writer->results().rows);
      std::cout << fmt::format("# results: {} and {}\n", writer->paths().csv.string(), writer->paths().json.string());
    }
  }

  // Every size runs the planned rounds of pairs in turn; a round's pairs are measured together.
  // Device copies run the same way, one route per round, the op being its own primitive.
  void measure_pair_pattern(const PlannedOp& planned, const RunContext& context, ResultsWriter* writer) {
    const OpTraits& primitive = planned.op->pair_primitive.empty() ? *planned.op : op_by_name(planned.op->pair_primitive);
    if (writer)
      for (const DeviceRoute& route : planned.unavailable_routes)
        std::cout << fmt::format("# {}: {}; not measured\n", planned.op->name, route.unavailable_reason);
    const PairMetric metric = primitive.name == "latency" ? PairMetric::latency : PairMetric::bandwidth;
    for (const auto& cases : planned.cases_by_size) {
      const BenchmarkCase& pattern_case = cases.front();
      BenchmarkCase primitive_case = pattern_case;
      primitive_case.op = &primitive;
      std::vector<ResultRow> rows;
      std::optional<RoundProgress> progress;
      const bool terminal = ::isatty(STDERR_FILENO) == 1;
      if (writer && planned.pair_rounds.size() > 1 && (options_.progress || terminal))
        progress.emplace(std::cerr, terminal, fmt::format("{} {} bytes", planned.op->name, pattern_case.bytes),
                         planned.pair_rounds.size());
      for (const PairRound& round : planned.pair_rounds) {
        in_flight_.set(pattern_case, planned.op->op_class == OpClass::pair_pattern ? &round : nullptr);
        for (Measurement& measurement : backend_->measure_pairs(primitive_case, round.pairs)) {
          any_wrong_ = any_wrong_ || measurement.wrong.value_or(0) > 0;
          if (!writer) continue;
          measurement.round = round.round;
          measurement.concurrent_flows = static_cast<int>(round.pairs.size());
          rows.push_back(with_expectation(make_result_row(pattern_case, measurement, context), *writer));
          writer->append(rows.back());
        }
        if (progress) progress->round_done(static_cast<std::size_t>(&round - planned.pair_rounds.data()) + 1);
      }
      progress.reset();
      if (!writer) continue;
      writer->flush();
      if (planned.op->pair_schedule == PairSchedule::cut_alone_then_together) print_alone_against_together(std::cout, rows);
      else print_pair_matrix(std::cout, rows, metric);
      for (const EfficiencySummary& summary : summarize_efficiency(rows))
        std::cout << fmt::format("# %exp: median {:.1f}%, lowest {:.1f}% ({})\n", summary.median_efficiency_pct,
                                 summary.lowest_efficiency_pct, summary.lowest_row);
      std::cout.flush();
    }
  }

  void record_port_counters(std::vector<PortCounterChange> changes, ResultsWriter& writer) {
    std::set<std::string> hosts;
    std::size_t degraded = 0;
    for (const PortCounterChange& change : changes) {
      hosts.insert(change.host);
      if (!change.degraded()) continue;
      ++degraded;
      std::cout << fmt::format("# port degraded: {}\n", describe_port_change(change));
    }
    std::cout << fmt::format("# port counters: {} RDMA port{} on {} host{} read before and after; {} degraded\n",
                             changes.size(), changes.size() == 1 ? "" : "s", hosts.size(), hosts.size() == 1 ? "" : "s",
                             degraded);
    if (!changes.empty()) writer.record_port_counters(std::move(changes));
  }

  // On the watchdog's thread, before the backend ends the job: the incident joins the rows on disk.
  void record_timeout(const StallReport& stall, const RunContext& context, ResultsWriter& writer) {
    std::string line;
    try {
      const Incident incident = in_flight_.timeout_incident(stall, context);
      writer.record_incident(incident);
      line = fmt::format("fabricbench: {}; recorded in {} beside every completed size\n", describe_incident(incident),
                         writer.paths().json.string());
    } catch (const std::exception& e) {
      line = fmt::format("fabricbench: the timeout could not be recorded: {}\n", e.what());
    }
    std::cerr << line << std::flush;
  }

  ResultRow with_expectation(ResultRow row, const ResultsWriter& writer) {
    row.repetition = repetition_;
    if (expectations_) {
      expectations_->add(row, writer.results().provenance.rank_hosts, writer.results().provenance.environment);
    }
    return row;
  }

  RunCommandOptions options_;
  ProcessArguments process_;
  std::unique_ptr<Backend> backend_;
  bool any_wrong_ = false;
  double duration_s_ = 0;
  std::optional<int> repetition_;  // soak runs: the sweep being measured
  CaseInFlight in_flight_;  // for the incident when the watchdog ends the run
  std::optional<topo::Graph> topology_;  // reporting rank, with --topology
  std::optional<ExpectationColumns> expectations_;
};

const Registrar<CommandRegistration> registrar{{
    "run", "measure ops over a size sweep (nccl-tests flags), print a table, write CSV and JSON results",
    [](CLI::App& sub, const ProcessArguments& process) -> std::function<int()> {
      auto options = std::make_shared<RunCommandOptions>();
      add_flags(sub, *options);
      return [options, process] { return RunCommand(*options, process).run(); };
    }}};

}  // namespace
}  // namespace fb::cli
