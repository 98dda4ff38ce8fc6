#pragma once
// The MPI backend: host buffers, one process per rank, timed with the host clock.

#include "benchmarks/core/backend.hpp"
#include "benchmarks/core/watchdog.hpp"
#include "benchmarks/mpi/mpi_op.hpp"
#include "benchmarks/mpi/mpi_job.hpp"

#include <memory>
#include <span>

namespace fb {

class MpiBackend final : public Backend {
 public:
  // Initializes MPI (finalized with the backend) and learns where every rank runs.
  MpiBackend(int& argc, char**& argv, const LaunchOptions& launch = {});
  ~MpiBackend() override;
  MpiBackend(const MpiBackend&) = delete;
  MpiBackend& operator=(const MpiBackend&) = delete;

  std::string_view name() const override { return "mpi"; }
  const RankPlacement& placement() const override { return placement_; }
  std::map<std::string, std::string> library_versions() const override;
  std::vector<Placement> placements_of(const OpTraits& op) const override;
  bool buffers_in_host_memory() const override { return true; }
  std::optional<HostPagesReport> host_buffer_pages() const override { return host_pages_; }
  void require_supported(DataType dtype) const override;
  Measurement measure(const BenchmarkCase& benchmark_case) override;
  std::vector<Measurement> measure_pairs(const BenchmarkCase& benchmark_case, std::span<const RankPair> pairs) override;
  bool times_to_min_time() const override { return true; }
  JobControl& job() override { return *job_control_; }

 private:
  // What this rank measured of a case: its own times per unit and its own wrong elements.
  struct LocalRun {
    std::vector<double> unit_seconds;
    std::optional<std::uint64_t> wrong;
    // Back to back only: the timed loops' seconds per unit, over all their iterations.
    std::optional<double> loop_mean_unit_seconds;
  };
  // With min_time_s: from the first timed iterations, the count that lasts that long on the slowest
  // rank, within the case's bounds. Collective.
  int iterations_to_min_time(const BenchmarkCase& benchmark_case, std::span<const double> first_seconds);
  // How the timed iterations of a case line up across ranks.
  enum class IterationStart {
    back_to_back,  // each rank runs its iterations without waiting: point-to-point alone
    together,      // every iteration starts after a barrier: collectives, pairs measured at once
  };
  LocalRun run_locally(const BenchmarkCase& benchmark_case, IterationStart start);

  MpiJob mpi_;  // first: MPI is finalized after everything else is gone
  MpiOpContext context_;
  RankPlacement placement_;
  std::unique_ptr<Watchdog> watchdog_;
  std::unique_ptr<MpiJobControl> job_control_;
  HostPagesReport host_pages_;
};

}  // namespace fb
