#pragma once
// The measuring loop of `fabricbench run`: every planned case on a backend, sweep after sweep for
// soak runs, each size's results rows handed to a RowSink as soon as the size is measured. The
// engine decides nothing about presentation: the sinks the command picks write files, print the
// console table, or (on ranks that do not report) nothing.

#include "benchmarks/core/backend.hpp"
#include "benchmarks/core/incident_builder.hpp"
#include "benchmarks/core/row_sink.hpp"
#include "benchmarks/core/run_plan.hpp"
#include "results/port_counters.hpp"
#include "results/provenance.hpp"
#include "results/result_row.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace fb {

// Read on every host before the first sweep and after the last; collective over the backend's
// ranks. The reporting rank gets every host's changes, the others none.
class PortCounterSource {
 public:
  virtual ~PortCounterSource() = default;
  virtual void read_before() = 0;
  virtual std::vector<PortCounterChange> changes_since_before() = 0;
};

struct MeasurementSettings {
  // The reporting rank's provenance: its run id goes into every row. Other ranks leave it empty.
  Provenance provenance;
  // Soak: sweeps to run (0 or 1: one), or, with `duration_s` > 0, sweeps until that much time
  // has passed on the reporting rank's clock.
  int repeat = 0;
  double duration_s = 0;
  // Applied to every row before any sink sees it (the topology model's expectation).
  std::function<void(ResultRow&)> annotate_row;
};

struct MeasurementOutcome {
  // Elements that failed validation over the whole run, known on every rank.
  std::uint64_t wrong_elements = 0;
};

class MeasurementEngine {
 public:
  // On the reporting rank the engine sets the backend's stall handler, to send the watchdog's
  // incident to `sink`, and replaces it with one that does nothing when destroyed.
  MeasurementEngine(Backend& backend, RowSink& sink, MeasurementSettings settings);
  ~MeasurementEngine();
  MeasurementEngine(const MeasurementEngine&) = delete;
  MeasurementEngine& operator=(const MeasurementEngine&) = delete;

  // Collective over the backend's ranks. Throws what the backend throws; every size completed
  // before has reached the sink by then.
  MeasurementOutcome run(const std::vector<PlannedOp>& plan, PortCounterSource& port_counters);

 private:
  void measure_sweep(const std::vector<PlannedOp>& plan);
  void measure_sizes(const PlannedOp& planned);
  void measure_pair_rounds(const PlannedOp& planned);
  void count_wrong(const Measurement& measurement);
  ResultRow row_of(const BenchmarkCase& benchmark_case, const Measurement& measurement) const;

  Backend& backend_;
  RowSink& sink_;
  MeasurementSettings settings_;
  RunContext context_;
  bool reporting_ = false;
  std::optional<int> repetition_;  // soak runs: the sweep being measured
  CaseInFlight in_flight_;         // for the incident when the watchdog ends the run
  std::uint64_t wrong_elements_ = 0;
};

}  // namespace fb
