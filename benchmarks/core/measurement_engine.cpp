#include "benchmarks/core/measurement_engine.hpp"

#include <chrono>

namespace fb {

MeasurementEngine::MeasurementEngine(Backend& backend, RowSink& sink, MeasurementSettings settings)
    : backend_(backend),
      sink_(sink),
      settings_(std::move(settings)),
      context_{settings_.provenance.run_id, std::string(backend.name()), backend.placement()},
      reporting_(backend.placement().rank == 0) {
  if (reporting_)
    backend_.job().set_stall_handler(
        [this](const StallReport& stall) { sink_.incident(in_flight_.timeout_incident(stall, context_)); });
}

// A handler that does nothing rather than none: a backend may wrap the handler it is given in
// one of its own, which would then call an empty function.
MeasurementEngine::~MeasurementEngine() {
  if (reporting_) backend_.job().set_stall_handler([](const StallReport&) {});
}

// Soak: the sweep again and again, each repetition's rows marked with it, until `repeat` sweeps
// ran or `duration_s` passed. Rank 0's clock decides for every rank.
MeasurementOutcome MeasurementEngine::run(const std::vector<PlannedOp>& plan, PortCounterSource& port_counters) {
  port_counters.read_before();
  const bool soak = settings_.repeat > 1 || settings_.duration_s > 0;
  const auto start = std::chrono::steady_clock::now();
  if (reporting_) sink_.run_started(settings_.provenance);
  for (int repetition = 0;; ++repetition) {
    if (soak) {
      repetition_ = repetition;
      if (reporting_) sink_.repetition_started(repetition);
    }
    measure_sweep(plan);
    const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool more = settings_.repeat > 0 ? repetition + 1 < settings_.repeat : elapsed_s < settings_.duration_s;
    const bool again = backend_.job().all_agree(!reporting_ || more);
    // A soak run reads the counters around every repetition, so an error burst is tied to the
    // repetition whose pairs it slowed; the results then hold every repetition read so far.
    if (soak || !again) {
      std::vector<PortCounterChange> changes = port_counters.changes_since_before();
      if (soak)
        for (PortCounterChange& change : changes) change.repetition = repetition;
      if (reporting_) sink_.port_counters_read(changes);
      if (again) port_counters.read_before();
    }
    if (!again) break;
  }
  return {wrong_elements_};
}

void MeasurementEngine::measure_sweep(const std::vector<PlannedOp>& plan) {
  for (const PlannedOp& planned : plan) {
    if (reporting_) sink_.op_started(planned);
    if (planned.op->op_class == OpClass::pair_pattern || planned.op->op_class == OpClass::device_copy)
      measure_pair_rounds(planned);
    else
      measure_sizes(planned);
  }
  if (reporting_) sink_.sweep_done();
}

void MeasurementEngine::measure_sizes(const PlannedOp& planned) {
  for (const std::vector<BenchmarkCase>& cases : planned.cases_by_size) {
    std::vector<ResultRow> rows;
    for (const BenchmarkCase& benchmark_case : cases) {
      in_flight_.set(benchmark_case);
      const Measurement measurement = backend_.measure(benchmark_case);
      count_wrong(measurement);
      if (!reporting_) continue;
      rows.push_back(row_of(benchmark_case, measurement));
      sink_.row_measured(rows.back());
    }
    if (reporting_) sink_.size_done(planned, rows);
  }
}

// Every size runs the planned rounds of pairs in turn; a round's pairs are measured together.
// Device copies run the same way, one route per round, the op being its own primitive.
void MeasurementEngine::measure_pair_rounds(const PlannedOp& planned) {
  const OpTraits& primitive = primitive_of(*planned.op);
  const bool reports_rounds = reporting_ && planned.pair_rounds.size() > 1;
  for (const std::vector<BenchmarkCase>& cases : planned.cases_by_size) {
    const BenchmarkCase& pattern_case = cases.front();
    BenchmarkCase primitive_case = pattern_case;
    primitive_case.op = &primitive;
    std::vector<ResultRow> rows;
    if (reports_rounds) sink_.rounds_started(planned, pattern_case.bytes);
    for (std::size_t index = 0; index < planned.pair_rounds.size(); ++index) {
      const PairRound& round = planned.pair_rounds[index];
      in_flight_.set(pattern_case, planned.op->op_class == OpClass::pair_pattern ? &round : nullptr);
      for (Measurement& measurement : backend_.measure_pairs(primitive_case, round.pairs)) {
        count_wrong(measurement);
        if (!reporting_) continue;
        measurement.round = round.round;
        measurement.concurrent_flows = static_cast<int>(round.pairs.size());
        rows.push_back(row_of(pattern_case, measurement));
        sink_.row_measured(rows.back());
      }
      if (reports_rounds) sink_.round_done(index + 1);
    }
    if (reporting_) sink_.size_done(planned, rows);
  }
}

void MeasurementEngine::count_wrong(const Measurement& measurement) {
  wrong_elements_ += measurement.wrong.value_or(0);
}

ResultRow MeasurementEngine::row_of(const BenchmarkCase& benchmark_case, const Measurement& measurement) const {
  ResultRow row = make_result_row(benchmark_case, measurement, context_);
  row.repetition = repetition_;
  if (settings_.annotate_row) settings_.annotate_row(row);
  return row;
}

}  // namespace fb
