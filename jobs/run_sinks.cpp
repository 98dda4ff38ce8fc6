#include "jobs/run_sinks.hpp"

#include "benchmarks/core/result_builder.hpp"
#include "common/op_catalog.hpp"
#include "common/sizes.hpp"
#include "common/termination_signals.hpp"
#include "diagnosis/efficiency.hpp"
#include "results/atomic_file.hpp"
#include "results/repetition.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <iostream>
#include <set>

namespace fb::jobs {

using diagnosis::EfficiencySummary;
using diagnosis::summarize_efficiency;
namespace {

// What the termination-signal handler prints: composed before the handler is installed, because
// a handler may only make async-signal-safe calls.
std::array<char, 2048> interrupted_message{};
std::size_t interrupted_message_length = 0;
// When fast sizes were batched (ResultsWriter::flush), the last of them are not in the files.
std::array<char, 2048> interrupted_batched_message{};
std::size_t interrupted_batched_message_length = 0;

extern "C" void end_on_termination_signal(int signal_number) {
  const bool all = results_rows_all_published();
  [[maybe_unused]] const ssize_t written =
      ::write(STDERR_FILENO, all ? interrupted_message.data() : interrupted_batched_message.data(),
              all ? interrupted_message_length : interrupted_batched_message_length);
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
  const std::string batched = fmt::format(
      "fabricbench: interrupted; every size up to the last publication is in {} and {} (the sizes completed "
      "since, faster than the files could be rewritten, are not)\n",
      paths.csv.string(), paths.json.string());
  interrupted_batched_message_length = std::min(batched.size(), interrupted_batched_message.size());
  std::copy_n(batched.begin(), interrupted_batched_message_length, interrupted_batched_message.begin());
  struct sigaction action {};
  action.sa_handler = end_on_termination_signal;
  sigemptyset(&action.sa_mask);
  const sigset_t signals = termination_signals();
  for (int signal_number = 1; signal_number < NSIG; ++signal_number)
    if (sigismember(&signals, signal_number) == 1) ::sigaction(signal_number, &action, nullptr);
}

bool is_pair_op(const PlannedOp& planned) {
  return planned.op->op_class == OpClass::pair_pattern || planned.op->op_class == OpClass::device_copy;
}

}  // namespace

ResultsFileSink::ResultsFileSink(ResultsPaths paths, Provenance provenance, std::size_t expected_rows)
    : writer_(std::move(paths), std::move(provenance), expected_rows) {
  end_cleanly_on_termination_signals(writer_.paths());
  for (const std::filesystem::path& file : {writer_.paths().csv, writer_.paths().json})
    if (const std::string note = foreign_owner_note(file.parent_path().empty() ? "." : file.parent_path());
        !note.empty()) {
      std::cerr << fmt::format("fabricbench: warning: {}\n", note);
      break;
    }
}

void ResultsFileSink::incident(const Incident& incident) {
  std::string line;
  try {
    writer_.record_incident(incident);
    line = fmt::format("fabricbench: {}; recorded in {} beside every completed size\n", describe_incident(incident),
                       writer_.paths().json.string());
  } catch (const std::exception& e) {
    line = fmt::format("fabricbench: the timeout could not be recorded: {}\n", e.what());
  }
  std::cerr << line << std::flush;
}

void ResultsFileSink::port_counters_read(const std::vector<PortCounterChange>& changes) {
  if (changes.empty()) return;
  port_counters_.insert(port_counters_.end(), changes.begin(), changes.end());
  writer_.record_port_counters(port_counters_);
}

std::vector<OpParameters> parameters_of(const std::vector<PlannedOp>& plan, const RunOptions& options, int nranks) {
  std::vector<OpParameters> parameters;
  for (const PlannedOp& planned : plan) {
    if (planned.cases_by_size.empty() || planned.cases_by_size.front().empty()) continue;
    const OpTraits& op = *planned.op;
    const BenchmarkCase& first = planned.cases_by_size.front().front();
    OpParameters p;
    p.op = op.name;
    p.nranks = nranks;
    p.min_bytes = first.bytes;
    p.max_bytes = planned.cases_by_size.back().front().bytes;
    p.step_factor = options.step_factor;
    if (!options.step_bytes.empty()) p.step_bytes = parse_size_bytes(options.step_bytes);
    p.warmup_iterations = first.warmup_iterations;
    p.iterations = first.iterations;
    if (first.min_time_s > 0)
      p.automatic = AutoIterations{.min_time_s = first.min_time_s, .max_iterations = first.max_iterations};
    p.check = first.check;
    p.graph_launches = first.graph_launches;
    p.dtype = name_of(first.dtype);
    if (op.takes_redop) p.redop = name_of(first.redop);
    if (op.takes_root) p.root = first.root;
    for (Placement placement : planned.placements) p.placements.emplace_back(name_of(placement));
    if (op.op_class == OpClass::point_to_point) {
      p.src_rank = first.src_rank;
      p.dst_rank = first.dst_rank;
    }
    // bw and bibw, alone or as the primitive of a pair pattern, keep a window of messages in flight.
    if (fb::is_pair_op(op) && !reports_latency(op)) p.window = first.window;
    parameters.push_back(std::move(p));
  }
  return parameters;
}

void ConsoleSink::run_started(const Provenance& provenance) {
  print_provenance(out_, provenance);
  print_run_parameters(out_, settings_.parameters);
}

void ConsoleSink::repetition_started(int repetition) {
  out_ << fmt::format("# {} at {}\n", repetition_text(repetition), utc_timestamp_now());
}

void ConsoleSink::op_started(const PlannedOp& planned) {
  sweep_progress_.reset();
  if (is_pair_op(planned)) {
    table_.reset();
    for (const DeviceRoute& route : planned.unavailable_routes)
      out_ << fmt::format("# {}: {}; not measured\n", planned.op->name, route.unavailable_reason);
    return;
  }
  if (settings_.round_progress) {
    std::vector<std::uint64_t> sizes_bytes;
    for (const std::vector<BenchmarkCase>& cases : planned.cases_by_size)
      if (!cases.empty()) sizes_bytes.push_back(cases.front().bytes);
    sweep_progress_.emplace(progress_out_, settings_.progress_on_terminal, std::string(planned.op->name),
                            std::move(sizes_bytes));
  }
  std::vector<bool> groups;
  for (Placement placement : planned.placements) groups.push_back(placement == Placement::in_place);
  table_.emplace(out_, groups, settings_.with_expectation);
  table_->print_header(planned.op->name);
}

void ConsoleSink::rounds_started(const PlannedOp& planned, std::uint64_t bytes) {
  if (settings_.round_progress)
    progress_.emplace(progress_out_, settings_.progress_on_terminal,
                      fmt::format("{} {} bytes", planned.op->name, bytes), planned.pair_rounds.size());
}

void ConsoleSink::round_done(std::size_t rounds_done) {
  if (progress_) progress_->round_done(rounds_done);
}

void ConsoleSink::size_done(const PlannedOp& planned, std::span<const ResultRow> rows) {
  progress_.reset();
  summary_.add(rows);
  if (table_) {
    if (sweep_progress_) sweep_progress_->clear();
    table_->print_size(rows);
    out_.flush();
    if (sweep_progress_) sweep_progress_->size_done();
    return;
  }
  if (planned.op->pair_schedule == PairSchedule::cut_alone_then_together) {
    print_alone_against_together(out_, rows);
  } else {
    print_pair_matrix(out_, rows,
                      reports_latency(primitive_of(*planned.op)) ? PairMetric::latency : PairMetric::bandwidth);
  }
  for (const EfficiencySummary& summary : summarize_efficiency(rows))
    out_ << fmt::format("# %exp: median {:.1f}%, lowest {:.1f}% ({})\n", summary.median_efficiency_pct,
                        summary.lowest_efficiency_pct, summary.lowest_row);
  out_.flush();
}

void ConsoleSink::sweep_done() {
  sweep_progress_.reset();
  summary_.print(out_);
  out_ << fmt::format("# results: {} and {}\n", settings_.results.csv.string(), settings_.results.json.string());
}

void ConsoleSink::port_counters_read(const std::vector<PortCounterChange>& changes) {
  std::set<std::string> hosts;
  std::size_t degraded = 0;
  for (const PortCounterChange& change : changes) {
    hosts.insert(change.host);
    if (!change.degraded()) continue;
    ++degraded;
    out_ << fmt::format("# port degraded: {}\n", describe_port_change(change));
  }
  const std::optional<int> repetition = changes.empty() ? std::nullopt : changes.front().repetition;
  out_ << fmt::format("# port counters: {} RDMA port{} on {} host{} read {}; {} degraded\n", changes.size(),
                      changes.size() == 1 ? "" : "s", hosts.size(), hosts.size() == 1 ? "" : "s",
                      repetition ? fmt::format("at the start and end of {}", repetition_text(*repetition))
                                 : "before and after",
                      degraded);
}

}  // namespace fb::jobs
