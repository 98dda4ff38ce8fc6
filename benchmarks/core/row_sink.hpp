#pragma once
// Where the measuring engine (benchmarks/core/measurement_engine.hpp) sends what a run reports.
// The command picks the sinks: results files and the console on the reporting rank, nothing on
// the others.

#include "benchmarks/core/run_plan.hpp"
#include "results/incident.hpp"
#include "results/port_counters.hpp"
#include "results/provenance.hpp"
#include "results/result_row.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace fb {

// The events of a run, in the order the engine sends them. Only the reporting rank sends any:
// the other ranks have no timings.
class RowSink {
 public:
  virtual ~RowSink() = default;

  // Once, before the first sweep.
  virtual void run_started(const Provenance& provenance) = 0;
  // Soak runs only: before each sweep (numbered from 0).
  virtual void repetition_started(int repetition) = 0;
  // Before the first size of each op, in every sweep.
  virtual void op_started(const PlannedOp& planned) = 0;
  // Pair patterns and device copies with more than one round: before the first round of a size,
  // then after every round.
  virtual void rounds_started(const PlannedOp& planned, std::uint64_t bytes) = 0;
  virtual void round_done(std::size_t rounds_done) = 0;
  // Each row as soon as it is measured, so a long size can reach the disk before it ends.
  virtual void row_measured(const ResultRow& row) = 0;
  // Every row of one size, in the order they were measured, after the last of them.
  virtual void size_done(const PlannedOp& planned, std::span<const ResultRow> rows) = 0;
  // After the last size of each sweep.
  virtual void sweep_done() = 0;
  // On the watchdog's thread while the measuring thread is blocked, before the job is ended.
  virtual void incident(const Incident& incident) = 0;
  // After the last sweep, how every host's RDMA ports changed over the run; in a soak run, after
  // every repetition, how they changed over it (each change names its repetition).
  virtual void port_counters_read(const std::vector<PortCounterChange>& changes) = 0;
};

// The ranks that do not report.
class NullRowSink final : public RowSink {
 public:
  void run_started(const Provenance&) override {}
  void repetition_started(int) override {}
  void op_started(const PlannedOp&) override {}
  void rounds_started(const PlannedOp&, std::uint64_t) override {}
  void round_done(std::size_t) override {}
  void row_measured(const ResultRow&) override {}
  void size_done(const PlannedOp&, std::span<const ResultRow>) override {}
  void sweep_done() override {}
  void incident(const Incident&) override {}
  void port_counters_read(const std::vector<PortCounterChange>&) override {}
};

// Every event to each of `sinks`, in their order.
class FanOutRowSink final : public RowSink {
 public:
  explicit FanOutRowSink(std::vector<RowSink*> sinks) : sinks_(std::move(sinks)) {}

  void run_started(const Provenance& provenance) override;
  void repetition_started(int repetition) override;
  void op_started(const PlannedOp& planned) override;
  void rounds_started(const PlannedOp& planned, std::uint64_t bytes) override;
  void round_done(std::size_t rounds_done) override;
  void row_measured(const ResultRow& row) override;
  void size_done(const PlannedOp& planned, std::span<const ResultRow> rows) override;
  void sweep_done() override;
  void incident(const Incident& incident) override;
  void port_counters_read(const std::vector<PortCounterChange>& changes) override;

 private:
  std::vector<RowSink*> sinks_;
};

}  // namespace fb
