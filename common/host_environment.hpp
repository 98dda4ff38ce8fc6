#pragma once
// Facts of this process and host that a run's provenance and the doctor's inventory both record.

#include <string>
#include <string_view>

namespace fb {

// "20261122T231504Z-3fa9c1": sortable by start time, unique across concurrent runs.
std::string new_run_id();

// argv joined with shell quoting, so the line can be pasted back into a shell.
std::string shell_command_line(int argc, char** argv);

// This machine's host name (gethostname), "localhost" when it has none.
std::string this_host_name();

// Environment variables that select transports, algorithms and tuning (NCCL_*, UCX_*, ...), and
// the Slurm job the run is part of (SLURM_JOB_ID, SLURM_JOB_NODELIST, SLURM_JOB_PARTITION).
bool is_relevant_environment_variable(std::string_view name);

}  // namespace fb
