#include "common/host_environment.hpp"

#include <unistd.h>

#include <array>
#include <chrono>
#include <climits>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <random>

namespace fb {

bool is_relevant_environment_variable(std::string_view name) {
  constexpr std::array prefixes{"NCCL_", "UCX_", "OMPI_MCA_", "FI_", "CUDA_", "MPICH_", "I_MPI_"};
  // mpirun hands every process its own wiring (URIs, job ids, session dirs) as OMPI_MCA_*; those
  // differ from run to run and say nothing about how the fabric was used.
  constexpr std::array launcher_internals{"OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix", "OMPI_MCA_initial_wdir",
                                          "OMPI_MCA_shmem_RUNTIME_QUERY_hint"};
  for (std::string_view internal : launcher_internals)
    if (name.starts_with(internal)) return false;
  for (std::string_view prefix : prefixes)
    if (name.starts_with(prefix)) return true;
  // Under Slurm: the job the run belongs to, to find it in the scheduler's accounting.
  constexpr std::array slurm_job{"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_JOB_PARTITION"};
  return std::ranges::find(slurm_job, name) != slurm_job.end();
}

std::string this_host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

std::string new_run_id() {
  std::random_device entropy;
  return fmt::format("{:%Y%m%dT%H%M%SZ}-{:06x}",
                     std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()), entropy() & 0xffffffu);
}

std::string shell_command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool plain = !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789-_./=:,+@%") == std::string_view::npos;
    if (!line.empty()) line += ' ';
    if (plain) {
      line += arg;
      continue;
    }
    line += '\'';
    for (char c : arg) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

}  // namespace fb
