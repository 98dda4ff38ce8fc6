#include "benchmarks/core/row_sink.hpp"

namespace fb {

void FanOutRowSink::run_started(const Provenance& provenance) {
  for (RowSink* sink : sinks_) sink->run_started(provenance);
}
void FanOutRowSink::repetition_started(int repetition) {
  for (RowSink* sink : sinks_) sink->repetition_started(repetition);
}
void FanOutRowSink::op_started(const PlannedOp& planned) {
  for (RowSink* sink : sinks_) sink->op_started(planned);
}
void FanOutRowSink::rounds_started(const PlannedOp& planned, std::uint64_t bytes) {
  for (RowSink* sink : sinks_) sink->rounds_started(planned, bytes);
}
void FanOutRowSink::round_done(std::size_t rounds_done) {
  for (RowSink* sink : sinks_) sink->round_done(rounds_done);
}
void FanOutRowSink::row_measured(const ResultRow& row) {
  for (RowSink* sink : sinks_) sink->row_measured(row);
}
void FanOutRowSink::size_done(const PlannedOp& planned, std::span<const ResultRow> rows) {
  for (RowSink* sink : sinks_) sink->size_done(planned, rows);
}
void FanOutRowSink::sweep_done() {
  for (RowSink* sink : sinks_) sink->sweep_done();
}
void FanOutRowSink::incident(const Incident& incident) {
  for (RowSink* sink : sinks_) sink->incident(incident);
}
void FanOutRowSink::port_counters_read(const std::vector<PortCounterChange>& changes) {
  for (RowSink* sink : sinks_) sink->port_counters_read(changes);
}

}  // namespace fb
