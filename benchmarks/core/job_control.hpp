#pragma once
// The job a backend's ranks form, apart from what they measure: deciding together, gathering
// what each host knows alone, ending every rank at once, and the watchdog's report before a stalled
// job is ended. A multi-process backend does this over MPI (benchmarks/mpi/mpi_job.hpp); a
// single-process one with SingleProcessJob.

#include "benchmarks/core/stall_report.hpp"

#include <string>
#include <vector>

namespace fb {

class JobControl {
 public:
  virtual ~JobControl() = default;

  // True on every rank when `local_ok` is true on every rank: for decisions one rank makes (such
  // as whether the results directory is writable) that all ranks must follow.
  virtual bool all_agree(bool local_ok) = 0;

  // The reporting rank's `value` on every rank, whatever the others pass: for what rank 0 alone
  // decides (a campaign's exit code), so that every rank ends the same way and the launcher's
  // status does not depend on which rank exits first.
  virtual int reporting_rank_value(int value) = 0;

  // Every rank's `local` at the reporting rank, by rank; empty on the other ranks. Collective over
  // all ranks: for what each host knows alone (its port counters).
  virtual std::vector<std::string> gather_at_reporting_rank(const std::string& local) = 0;

  // Ends every rank of the job at once with `exit_code`, for failures seen by some ranks only.
  // The caller has said why on stderr; nothing is cleaned up, as the other ranks may be blocked.
  [[noreturn]] virtual void abort_all(int exit_code) = 0;

  // A job whose watchdog ends it when a step passes its deadline hands the watchdog's report to
  // `handler` first (on the watchdog's thread), so that the run can record the incident. Jobs
  // without a watchdog never stall that way and ignore it.
  virtual void set_stall_handler(StallHandler handler) = 0;
};

// A job of one process: it agrees with itself, gathers its own string, and ends by ending itself.
class SingleProcessJob final : public JobControl {
 public:
  bool all_agree(bool local_ok) override { return local_ok; }
  int reporting_rank_value(int value) override { return value; }
  std::vector<std::string> gather_at_reporting_rank(const std::string& local) override { return {local}; }
  // Flushes stdout and stderr (the table printed so far) and ends the process at once, without
  // exit handlers or destructors, as MPI_Abort ends a rank.
  [[noreturn]] void abort_all(int exit_code) override;
  void set_stall_handler(StallHandler) override {}
};

// A backend driving `ranks_per_process` GPUs from each process numbers its ranks by GPU: process p
// stands for ranks p * ranks_per_process onwards. What each process gathered, by such rank.
std::vector<std::string> per_device_rank(const std::vector<std::string>& by_process, int ranks_per_process);

}  // namespace fb
