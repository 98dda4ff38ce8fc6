#pragma once
// The RDMA port counters of every host of a run, read before the first size and after the last:
// which ports gathered errors, went down or changed rate while the run measured.

#include "benchmarks/core/job_control.hpp"
#include "benchmarks/core/measurement_engine.hpp"
#include "common/rank_placement.hpp"
#include "doctor/port_counters.hpp"
#include "results/port_counters.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fb::jobs {

// The counters are read on the lowest rank of each host, under `sysfs_root`.
class PortCounterWatch final : public PortCounterSource {
 public:
  // Collective over the job's ranks, placed as `placement` says.
  PortCounterWatch(JobControl& job, RankPlacement placement, std::filesystem::path sysfs_root);

  void read_before() override;
  // The reporting rank gets every host's changes in rank order of the hosts.
  std::vector<PortCounterChange> changes_since_before() override;

 private:
  // Host -> its ports, at the reporting rank.
  std::map<std::string, std::vector<doctor::PortCounterSample>> sample_every_host();

  JobControl& job_;
  RankPlacement placement_;
  std::filesystem::path sysfs_root_;
  std::map<std::string, std::vector<doctor::PortCounterSample>> before_;
};

}  // namespace fb::jobs
