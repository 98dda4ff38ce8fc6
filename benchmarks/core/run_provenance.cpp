#include "core/run_provenance.hpp"

#include "core/backend.hpp"
#include "core/build_info.hpp"
#include "core/result_builder.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <climits>
#include <chrono>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <random>

extern char** environ;

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
                     std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()),
                     entropy() & 0xffffffu);
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

Provenance collect_provenance(const Backend& backend, std::string run_id, std::string command_line) {
  Provenance p;
  p.run_id = std::move(run_id);
  p.tool_version = FABRICBENCH_VERSION;
  p.git_revision = git_revision();
  p.start_time = utc_timestamp_now();
  p.command_line = std::move(command_line);
  p.backend = std::string(backend.name());
  const RankPlacement& placement = backend.placement();
  p.nranks = placement.nranks;
  p.nodes = placement.nodes;
  p.ranks_per_node = placement.ranks_per_node;
  p.rank_hosts = placement.rank_hosts;
  if (utsname host{}; ::uname(&host) == 0) p.kernel = fmt::format("{} {} {}", host.sysname, host.release, host.machine);
  p.libraries = backend.library_versions();
  for (char** entry = environ; *entry; ++entry) {
    const std::string_view text = *entry;
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    if (is_relevant_environment_variable(text.substr(0, equals)))
      p.environment.emplace(text.substr(0, equals), text.substr(equals + 1));
  }
  return p;
}

}  // namespace fb
