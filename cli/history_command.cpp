// `fabricbench history`: the run store (store/run_store.hpp) on the command line.
//   history [--store URL]                          the runs recorded
//   history --op OP [-s SIZE] | --host H | --pair A,B   one series over time, with its drift
//   history ingest DIR...                          record existing results files (idempotent)
//   history drift [--drain-list F] [--prometheus-textfile DIR]   every series judged for drift

#include "cli/command.hpp"
#include "history/fleet_drift.hpp"
#include "reports/metrics/fleet_metrics.hpp"
#include "cli/fabric_flags.hpp"
#include "common/console_text.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "results/result_loading.hpp"
#include "reports/html/trend_page.hpp"
#include "results/atomic_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

namespace fb::cli {

using history::FleetDrift;
using history::drift_findings;
using history::drifted_hosts;
using history::judge_store;
using history::run_series;
namespace {

// Beside the results `run` writes by default: zero set-up for one machine's history.
constexpr std::string_view default_store = "fabricbench-results/history.sqlite";

struct HistoryOptions {
  std::string store{default_store};
  std::string op;
  std::string size;
  std::optional<int> nranks;
  std::string host;
  std::vector<std::string> pair;
  std::string json_path;
  std::string html_path;
  std::vector<std::string> ingest_inputs;
  std::string drain_list_path;
  std::string prometheus_dir;
  std::vector<std::string> topology;
  diagnosis::DriftSettings drift;
};

int list_runs(store::RunStore& store, const HistoryOptions& options) {
  const std::vector<store::StoredRun> runs = store.runs();
  std::cout << fmt::format("# {}: {} runs (schema version {})\n", store.name(), runs.size(), store.schema_version());
  if (!runs.empty())
    std::cout << fmt::format("# {:<28} {:<21} {:<8} {:>6} {:>6}  {}\n", "run", "start", "backend", "ranks", "rows",
                             "hosts");
  for (const store::StoredRun& run : runs)
    std::cout << fmt::format("  {:<28} {:<21} {:<8} {:>6} {:>6}  {}{}\n", console_text(run.run_id),
                             console_text(run.start_time), console_text(run.backend), run.nranks, run.rows,
                             console_text(run.hosts),
                             run.slurm_job_id.empty() ? ""
                                                      : fmt::format(" (Slurm job {})", console_text(run.slurm_job_id)));
  if (!options.json_path.empty()) {
    nlohmann::json json = nlohmann::json::array();
    for (const store::StoredRun& run : runs)
      json.push_back({{"run_id", run.run_id},
                      {"start_time", run.start_time},
                      {"backend", run.backend},
                      {"nranks", run.nranks},
                      {"nodes", run.nodes},
                      {"hosts", run.hosts},
                      {"slurm_job_id", run.slurm_job_id},
                      {"rows", run.rows},
                      {"source", run.source}});
    write_file_atomically(options.json_path, nlohmann::json{{"runs", json}}.dump(1) + "\n");
  }
  return static_cast<int>(ExitCode::ok);
}

nlohmann::json change_json(const diagnosis::RunSeries& series, const diagnosis::DriftChange& change) {
  return {{"began_run_id", series.run_ids[change.began]},
          {"began_start_time", series.start_times[change.began]},
          {"flagged_run_id", series.run_ids[change.flagged]},
          {"direction", change.lower ? "lower" : "higher"},
          {"worse", change.lower == series.higher_is_better},
          {"baseline_median", change.baseline.median},
          {"baseline_log_spread", change.baseline.log_spread},
          {"changed_median", change.changed_median},
          {"ratio", change.ratio()},
          {"open", !change.cleared},
          {"cleared_run_id", change.cleared ? series.run_ids[*change.cleared] : ""},
          {"cleared_start_time", change.cleared ? series.start_times[*change.cleared] : ""}};
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one table of a series' runs with each run's drift marks, laid out where the columns are printed
int show_trend(store::RunStore& store, const HistoryOptions& options) {
  store::SeriesQuery query{.op = options.op, .nranks = options.nranks, .host = options.host};
  if (!options.size.empty()) query.bytes = parse_size_bytes(options.size);
  if (!options.pair.empty()) {
    if (options.pair.size() != 2) throw UsageError("--pair takes two hosts: --pair A,B");
    query.host = options.pair[0];
    query.peer = options.pair[1];
  }
  const store::Trend trend = store.trend(query);
  const diagnosis::RunSeries series = run_series(trend);
  const std::vector<double>& values = series.values;
  const diagnosis::SeriesDrift drift = diagnosis::judge_series(series, options.drift);
  const std::vector<diagnosis::DriftChange>& changes = drift.changes;
  std::cout << fmt::format("# {}: {} runs; {} ({}), median over each run's rows\n", console_text(series.subject),
                           trend.points.size(), series.value_name, series.unit);
  std::cout << fmt::format("# {:<28} {:<21} {:>5} {:>12} {:>12}  {}\n", "run", "start", "rows",
                           fmt::format("{} {}", series.value_name, series.unit), "time us", "drift");
  for (std::size_t i = 0; i < trend.points.size(); ++i) {
    const std::string mark = diagnosis::drift_marks(drift, i, options.drift);
    const store::TrendPoint& p = trend.points[i];
    std::cout << fmt::format("  {:<28} {:<21} {:>5} {:>12.4g} {:>12.4g}  {}\n", console_text(p.run_id),
                             console_text(p.start_time), p.rows, values[i], p.time_us, mark);
  }
  if (changes.empty())
    std::cout << fmt::format("# no change: every run within the CUSUM threshold of the first {} runs' baseline{}\n",
                             options.drift.baseline_runs,
                             values.size() <= options.drift.baseline_runs ? " (too few runs to judge)" : "");
  if (!options.json_path.empty()) {
    nlohmann::json json{
        {"series", series.subject},          {"op", trend.query.op}, {"bytes", *trend.query.bytes},
        {"value", series.value_name},        {"unit", series.unit},  {"points", nlohmann::json::array()},
        {"changes", nlohmann::json::array()}};
    if (trend.query.nranks) json["nranks"] = *trend.query.nranks;
    if (!trend.query.host.empty()) json["host"] = trend.query.host;
    if (!trend.query.peer.empty()) json["peer"] = trend.query.peer;
    for (std::size_t i = 0; i < trend.points.size(); ++i)
      json["points"].push_back({{"run_id", trend.points[i].run_id},
                                {"start_time", trend.points[i].start_time},
                                {"rows", trend.points[i].rows},
                                {"value", values[i]},
                                {"time_us", trend.points[i].time_us}});
    for (const diagnosis::DriftChange& c : changes) json["changes"].push_back(change_json(series, c));
    write_file_atomically(options.json_path, json.dump(1) + "\n");
  }
  if (!options.html_path.empty()) {
    write_file_atomically(options.html_path, render_trend_page(series, drift));
    std::cout << fmt::format("# trend page: {}\n", options.html_path);
  }
  return static_cast<int>(ExitCode::ok);
}

int ingest(store::RunStore& store, const HistoryOptions& options) {
  std::size_t added = 0;
  std::size_t updated = 0;
  std::size_t unchanged = 0;
  // One transaction: a malformed file or a run id taken by another run refuses the whole ingest,
  // and the store's pages are written once, not once per run. The files are parsed on the other
  // cores while the runs before them are recorded (docs/fleet-health.md, Scale).
  const std::vector<store::RecordOutcome> outcomes = store.record_all([&](const store::RunStore::Recorder& record) {
    for_each_result_set(std::vector<std::filesystem::path>(options.ingest_inputs.begin(), options.ingest_inputs.end()),
                        [&](LoadedResults&& set) { record(set.results, set.source.string()); });
  });
  for (const store::RecordOutcome outcome : outcomes) {
    switch (outcome) {
      case store::RecordOutcome::added: ++added; break;
      case store::RecordOutcome::updated: ++updated; break;
      case store::RecordOutcome::unchanged: ++unchanged; break;
    }
  }
  std::cout << fmt::format("# {}: {} runs added, {} updated (grew since), {} already recorded\n", store.name(), added,
                           updated, unchanged);
  return static_cast<int>(ExitCode::ok);
}

int judge_drift(store::RunStore& store, const HistoryOptions& options) {
  const FleetDrift fleet = judge_store(store, options.drift);
  std::cout << fmt::format("# drift: {} hosts, {} pairs, {} collective series judged (two-sided CUSUM, baseline {} "
                           "runs, spread at least {:.4g}%, k {}, h {})\n",
                           fleet.hosts.size(), fleet.pairs.size(), fleet.collectives.size(),
                           options.drift.baseline_runs, 100 * options.drift.min_spread, options.drift.slack,
                           options.drift.threshold);
  const std::vector<diagnosis::Finding> findings = drift_findings(fleet);
  if (findings.empty()) std::cout << "# no findings\n";
  for (const diagnosis::Finding& f : findings)
    std::cout << fmt::format("  {:<8} {:<44} {:>10.4g} {:>10.4g} {:<5} {}\n", f.kind, console_text(f.subject),
                             *f.expected, *f.measured, f.unit, console_text(f.evidence_text()));
  if (!options.json_path.empty()) {
    nlohmann::json json{{"findings", nlohmann::json::array()}};
    for (const diagnosis::Finding& f : findings)
      json["findings"].push_back({{"kind", f.kind},
                                  {"subject", f.subject},
                                  {"expected", *f.expected},
                                  {"measured", *f.measured},
                                  {"unit", f.unit},
                                  {"evidence", f.evidence}});
    write_file_atomically(options.json_path, json.dump(1) + "\n");
  }
  diagnosis::DrainList drain("history drift");
  for (const diagnosis::HostReason& drifted : drifted_hosts(fleet)) drain.add(drifted.host, drifted.reason);
  if (!options.drain_list_path.empty()) drain.write(options.drain_list_path, std::cout);
  std::vector<GaugeFamily> gauges = fleet_gauges(fleet, drain);
  if (!options.topology.empty()) {
    const LinkGauges links = link_gauges(fleet, load_topology_with_warnings(options.topology));
    gauges.insert(gauges.end(), links.families.begin(), links.families.end());
    std::cout << fmt::format("# links: {} hosts on their one fabric cable", links.mapped_hosts);
    if (!links.several_cables.empty())
      std::cout << fmt::format("; {} hosts with several cables left out (their pair series does not say which "
                               "cable carried it): {}",
                               links.several_cables.size(), fmt::join(links.several_cables, ", "));
    if (!links.not_in_topology.empty())
      std::cout << fmt::format("; not in the topology: {}", fmt::join(links.not_in_topology, ", "));
    std::cout << "\n";
  }
  if (!options.prometheus_dir.empty())
    std::cout << fmt::format("# metrics: {}\n", write_prometheus_textfile(options.prometheus_dir, gauges).string());
  return static_cast<int>(!options.drain_list_path.empty() && !drain.empty() ? ExitCode::doctor_flags : ExitCode::ok);
}

void add_drift_flags(CLI::App& app, diagnosis::DriftSettings& drift) {
  app.add_option("--baseline-runs", drift.baseline_runs, "runs that set a series' baseline (median and spread)")
      ->capture_default_str()
      ->check(CLI::Range(3, 10'000));
  app.add_option("--cusum-threshold", drift.threshold, "CUSUM alarm threshold h, in baseline spreads")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--min-change-runs", drift.min_change_runs,
                 "the fewest runs in a row that make a change (a larger step is flagged at this run; more keeps "
                 "blocks of bad runs on a noisy machine from alarms)")
      ->capture_default_str()
      ->check(CLI::Range(2, 100));
  // A short baseline's few runs can agree by chance far more closely than the fabric's runs do;
  // an operator who knows the run-to-run noise states it here, so that noise does not accumulate.
  app.add_option_function<double>(
         "--min-spread-pct", [&drift](double pct) { drift.min_spread = pct / 100; },
         fmt::format(
             "the least run-to-run spread a baseline is given, percent (default {:.1f}): the noise the fabric's "
             "runs are known to have",
             100 * drift.min_spread))
      ->check(CLI::Range(0.1, 50.0));
}

const Registrar<CommandRegistration> registrar{
    {"history",
     "the run store: list runs, one series over time with its drift, ingest results files, judge every series",
     [](CLI::App& sub, const ProcessArguments&) -> std::function<int()> {
       auto options = std::make_shared<HistoryOptions>();
       // `history ingest DIR --store URL`: the subcommands take the command's own flags too.
       sub.fallthrough();
       sub.add_option("--store", options->store, "SQLite file, or postgresql://USER@HOST:PORT/DB")
           ->capture_default_str();
       sub.add_option("--op", options->op, "series of this op (with --host or --pair: default the most measured)");
       sub.add_option("-s,--size", options->size, "series at this size (default: the largest measured)");
       sub.add_option("--ranks", options->nranks, "collectives: series at this rank count (default: the most runs')");
       sub.add_option("--host", options->host, "series of this host's pair measurements");
       sub.add_option("--pair", options->pair, "series of this pair's measurements: A,B")->delimiter(',');
       sub.add_option("--json", options->json_path, "also write what is shown as JSON here");
       sub.add_option("--html", options->html_path,
                      "a series: also write its trend page here (HTML, the runs plotted by gnuplot, changes marked)");
       add_drift_flags(sub, options->drift);
       CLI::App* ingest_command = sub.add_subcommand("ingest", "record existing results files (again: no change)");
       ingest_command->add_option("inputs", options->ingest_inputs, "results files or directories")->required();
       CLI::App* drift_command = sub.add_subcommand("drift", "judge every host, pair and collective series for drift");
       drift_command->add_option("--drain-list", options->drain_list_path,
                                 "write the hosts whose own series drifted worse here (exit 7 when it lists one)");
       drift_command->add_option("--prometheus-textfile", options->prometheus_dir,
                                 "write DIR/fabricbench.prom for node_exporter's textfile collector");
       drift_command->add_option("--topology", options->topology,
                                 "the fabric (any topology format): per-link gauges for hosts with one fabric cable");
       return [options, ingest_command, drift_command] {
         // Reading a store that is not there is a typo, not an empty history: only ingest creates one.
         const store::StoreUrl url = store::StoreUrl::parse(options->store);
         if (!ingest_command->parsed() && !url.is_server() && !std::filesystem::exists(url.path()))
           throw InputError(
               fmt::format("no run store at {} (history ingest DIR --store {} or run --store {} records one)", url, url,
                           url));
         store::RunStore store(url);
         if (ingest_command->parsed()) return ingest(store, *options);
         if (drift_command->parsed()) return judge_drift(store, *options);
         if (options->op.empty() && options->host.empty() && options->pair.empty()) return list_runs(store, *options);
         return show_trend(store, *options);
       };
     }}};

}  // namespace
}  // namespace fb::cli
