#pragma once
// What the process launcher (mpirun, srun) tells a process before MPI is initialized.

#include <cstdlib>
#include <string>

namespace fb::cli {

// This process's rank as the launcher announced it, 0 when started alone. Lets errors found
// before MPI_Init be printed once per job instead of once per rank.
inline int launcher_rank() {
  for (const char* variable : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if (const char* value = std::getenv(variable)) return std::atoi(value);
  }
  return 0;
}

}  // namespace fb::cli
