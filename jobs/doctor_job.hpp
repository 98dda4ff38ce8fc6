#pragma once
// The pre-flight check (`fabricbench doctor`). Alone it inspects this host; under mpirun or srun
// the lowest rank of every host inspects its host, rank 0 gathers the reports, compares the hosts
// (doctor/checks.hpp) and prints one table for the job, the JSON report and the drain list.

#include <string>

namespace fb::jobs {

struct DoctorOptions {
  std::string sysfs_root = "/";
  std::string json_path;
  std::string drain_list_path;
  bool show_devices = false;
  double counter_interval_s = 0;
  // The process' own arguments: MPI_Init takes them under a launcher.
  int argc = 0;
  char** argv = nullptr;
};

// Returns the job's exit code on every rank: 0, 7 when a host has error flags, 2 when a host could
// not be inspected with these flags, 3 when an output could not be written.
int run_doctor(const DoctorOptions& options);

}  // namespace fb::jobs
