#pragma once
// What the process launcher (mpirun, prterun, mpiexec, srun) tells a process in its environment,
// read before MPI is initialized and without MPI: the CLI prints errors found before MPI_Init
// once per job, and doctor decides whether to initialize MPI at all. No MPI dependency, so
// builds without MPI read it too.

#include <functional>
#include <optional>
#include <span>
#include <string_view>

namespace fb {

struct LauncherVariable {
  const char* name;  // holds this process's rank in the job
  // Whether a launcher that sets it also wires up MPI (a PMI or PMIx server, or Open MPI's own
  // runtime). srun sets SLURM_PROCID whatever its --mpi plugin; with --mpi=none MPI_Init would
  // start singletons (slow, and failing on hosts without a launcher), so that variable gives a
  // rank but does not make the job an MPI job.
  bool wires_up_mpi = false;
};

// Every launcher variable, in the order they are consulted: the MPI runtime's own first, as
// under srun --mpi=pmix both PMIX_RANK and SLURM_PROCID are set.
std::span<const LauncherVariable> launcher_variables();

// Returns the value of an environment variable or nullptr, as std::getenv does.
using EnvironmentLookup = std::function<const char*(const char*)>;

struct LauncherEnvironment {
  // This process's rank as the launcher announced it; empty when started alone (or when no
  // variable holds a non-negative integer).
  std::optional<int> rank;
  // Whether the launcher wires up MPI, so that MPI_Init joins the job rather than starting alone.
  bool mpi_launcher = false;
};

LauncherEnvironment read_launcher_environment(const EnvironmentLookup& lookup);
// The same, from this process's environment.
LauncherEnvironment read_launcher_environment();

// This process's rank as the launcher announced it, 0 when started alone. Lets errors found
// before MPI_Init be printed once per job instead of once per rank.
int launcher_rank();

// Where a rank leaves its own exit code before MPI_Abort: a directory, on storage every node
// shares, that scripts/launch/fabricbench.sbatch names in this variable. Under `srun --mpi=pmix`
// MPI_Abort makes Slurm kill the whole step at once, a wrapper around each rank included, and
// srun's own status names no rank and reads like a failed launch.
inline constexpr const char* rank_exit_directory_variable = "FABRICBENCH_RANK_STATUS_DIR";

// Writes "ENDED_NS EXIT_CODE HOST" (wall-clock nanoseconds since the epoch, as `date +%s%N`, so the
// launcher can tell which rank failed first) to DIR/RANK, DIR from `lookup`'s
// rank_exit_directory_variable, atomically (a temporary file renamed), so a reader never sees half
// a line. Returns false, writing nothing, when the variable is unset or empty or the file cannot
// be written: an abort goes ahead either way.
bool record_rank_exit(const EnvironmentLookup& lookup, int rank, std::string_view host, int exit_code);
// The same, from this process's environment.
bool record_rank_exit(int rank, std::string_view host, int exit_code);

}  // namespace fb
