#pragma once
// The incident a run records when the watchdog ends it: what the run was measuring (the case as it
// planned it and, for pair patterns, the round of pairs in flight) and what the watchdog found.

#include "benchmarks/core/benchmark_case.hpp"
#include "common/pair_schedule.hpp"
#include "benchmarks/core/result_builder.hpp"
#include "benchmarks/core/stall_report.hpp"
#include "results/incident.hpp"

#include <mutex>
#include <optional>

namespace fb {

// `round` is the round of pairs in flight for pair patterns, null for other ops.
Incident make_timeout_incident(const BenchmarkCase& benchmark_case, const PairRound* round, const StallReport& stall,
                               const RunContext& context);

// What the measuring thread is running, kept for the watchdog's thread: set before every
// measurement, read when a deadline passes while the measuring thread is blocked.
class CaseInFlight {
 public:
  void set(const BenchmarkCase& benchmark_case, const PairRound* round = nullptr);
  // The incident of a stall in the case set last.
  Incident timeout_incident(const StallReport& stall, const RunContext& context) const;

 private:
  mutable std::mutex mutex_;
  BenchmarkCase case_;
  std::optional<PairRound> round_;
};

}  // namespace fb
