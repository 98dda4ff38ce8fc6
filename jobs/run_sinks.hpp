#pragma once
// The sinks of `fabricbench run` on the reporting rank: the results files and the console.

#include "benchmarks/core/row_sink.hpp"
#include "benchmarks/core/run_plan.hpp"
#include "reports/console/console_table.hpp"
#include "reports/console/round_progress.hpp"
#include "reports/console/run_parameters.hpp"
#include "results/results_io.hpp"

#include <cstddef>
#include <optional>
#include <ostream>

namespace fb::jobs {

// Keeps the results on disk as they are measured: every size flushed as it completes, the
// watchdog's incident and the port counters beside the rows.
class ResultsFileSink final : public RowSink {
 public:
  // Creates both files (see ResultsWriter, which throws when they cannot be written) and from then
  // on ends the process on a termination signal with a line naming them.
  ResultsFileSink(ResultsPaths paths, Provenance provenance, std::size_t expected_rows);

  void run_started(const Provenance&) override {}
  void repetition_started(int) override {}
  void op_started(const PlannedOp&) override {}
  void rounds_started(const PlannedOp&, std::uint64_t) override {}
  void round_done(std::size_t) override {}
  void row_measured(const ResultRow& row) override { writer_.append(row); }
  void size_done(const PlannedOp&, std::span<const ResultRow>) override { writer_.flush(); }
  void sweep_done() override {}
  // Also says on stderr what happened and where it is recorded.
  void incident(const Incident& incident) override;
  void port_counters_read(const std::vector<PortCounterChange>& changes) override;
  // Everything written so far: what `run --store` records when the run ends.
  const ResultSet& results() const { return writer_.results(); }

 private:
  ResultsWriter writer_;
  std::vector<PortCounterChange> port_counters_;  // every reading of the run so far
};

struct ConsoleSettings {
  bool with_expectation = false;  // the table's %exp column (run --topology)
  bool round_progress = false;    // report the rounds of pair patterns and the sizes of sweeps on `progress`
  bool progress_on_terminal = false;
  ResultsPaths results;                  // named after each sweep's summary
  std::vector<OpParameters> parameters;  // the parameter lines under the provenance
};

// What each planned op runs with, for the parameter lines: sizes, iterations and the rest as the
// plan has them, the step as `options` gives it.
std::vector<OpParameters> parameters_of(const std::vector<PlannedOp>& plan, const RunOptions& options, int nranks);

// The nccl-tests-like table on `out`, the provenance above it and a summary after each sweep; the
// progress through the rounds of pair patterns on `progress`.
class ConsoleSink final : public RowSink {
 public:
  ConsoleSink(std::ostream& out, std::ostream& progress, ConsoleSettings settings)
      : out_(out), progress_out_(progress), settings_(std::move(settings)) {}

  void run_started(const Provenance& provenance) override;
  void repetition_started(int repetition) override;
  void op_started(const PlannedOp& planned) override;
  void rounds_started(const PlannedOp& planned, std::uint64_t bytes) override;
  void round_done(std::size_t rounds_done) override;
  void row_measured(const ResultRow&) override {}
  void size_done(const PlannedOp& planned, std::span<const ResultRow> rows) override;
  void sweep_done() override;
  void incident(const Incident&) override {}
  void port_counters_read(const std::vector<PortCounterChange>& changes) override;

 private:
  std::ostream& out_;
  std::ostream& progress_out_;
  ConsoleSettings settings_;
  std::optional<ConsoleTable> table_;  // the op being measured, unless it is a pair pattern
  std::optional<RoundProgress> progress_;
  std::optional<SweepProgress> sweep_progress_;  // the op being swept, unless it is a pair pattern
  RunSummary summary_;
};

}  // namespace fb::jobs
