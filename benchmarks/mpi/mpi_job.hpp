#pragma once
// An MPI job for the life of this object: MPI initialized with errors returned (not fatal), where
// every process runs, and the few collectives the backends and doctor share beyond their own
// transfers. Every call goes through FB_MPI_CHECK. The MPI backend measures with it, the NCCL
// backend bootstraps over it, doctor gathers its hosts' reports with it.

#include "benchmarks/core/benchmark_case.hpp"
#include "benchmarks/core/job_control.hpp"
#include "benchmarks/core/watchdog.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb {

class MpiJob {
 public:
  // Initializes MPI (finalized with the job, unless something finalized it first) and learns
  // where every process runs. Collective.
  MpiJob(int& argc, char**& argv);
  ~MpiJob();
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;

  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // The host name of every process, by rank.
  const std::vector<std::string>& process_hosts() const { return process_hosts_; }
  // This process's index among the processes on its host (0: the lowest rank there), and how
  // many there are.
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }

  // "mpi_library" and "mpi_standard", for provenance.
  std::map<std::string, std::string> library_versions() const;

  void barrier() const;
  // Rank 0's `blob` on every rank, in place.
  void broadcast_from_rank_zero(std::span<std::byte> blob) const;
  // The same as a function, for the watchdog's rendezvous.
  BroadcastFromRankZero broadcaster() const;

  // True on every rank when `local_ok` is true on every rank.
  bool all_agree(bool local_ok) const;
  // Rank 0's `value` on every rank.
  int rank_zero_value(int value) const;
  // The lowest rank whose `local_ok` is false, on every rank; empty when every rank is ok.
  std::optional<int> first_rank_not_ok(bool local_ok) const;
  // The largest `local` of any rank, on every rank.
  double max_over_ranks(double local) const;

  // One measurement of the job from every rank's own: each iteration takes as long as on its
  // slowest rank (at rank 0; empty elsewhere), and the wrong elements are every rank's summed (on
  // every rank; only when `local_wrong` is given, which it is on every rank or none).
  Measurement slowest_rank_measurement(std::span<const double> local_unit_seconds,
                                       std::optional<std::uint64_t> local_wrong) const;

  // Every rank's own times and wrong counts, for pairs measured at once. Every rank gives as many
  // of each as every other.
  struct RankResults {
    std::vector<double> unit_seconds;  // rank by rank; at rank 0 only
    std::vector<std::uint64_t> wrong;  // rank by rank; on every rank
  };
  RankResults gather_rank_results(std::span<const double> local_unit_seconds,
                                  std::span<const std::uint64_t> local_wrong) const;

  // Every rank's `local` at rank 0, by rank; empty on the other ranks.
  std::vector<std::string> gather_strings_at_rank_zero(const std::string& local) const;

  // Ends every process of the job with `exit_code`.
  [[noreturn]] void abort_all(int exit_code) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  std::vector<std::string> process_hosts_;
};

// The first line of MPI_Get_library_version ("Open MPI v4.1.4, package: ..."), callable before
// MPI_Init (MPI-3); empty when MPI cannot say.
std::string mpi_library_version_line();

// The job control of a backend on an MPI job whose watchdog ends it on a stall. A backend that
// drives `ranks_per_process` GPUs from each process numbers its ranks by GPU: process p stands for
// ranks p * ranks_per_process onwards. `before_abort` releases what would keep a process alive
// past MPI_Abort (NCCL's communicators).
class MpiJobControl final : public JobControl {
 public:
  MpiJobControl(const MpiJob& job, Watchdog& watchdog, int ranks_per_process = 1,
                std::function<void()> before_abort = {});

  bool all_agree(bool local_ok) override { return job_.all_agree(local_ok); }
  int reporting_rank_value(int value) override { return job_.rank_zero_value(value); }
  std::vector<std::string> gather_at_reporting_rank(const std::string& local) override;
  [[noreturn]] void abort_all(int exit_code) override;
  void set_stall_handler(StallHandler handler) override;

 private:
  const MpiJob& job_;
  Watchdog& watchdog_;
  int ranks_per_process_;
  std::function<void()> before_abort_;
};

}  // namespace fb
