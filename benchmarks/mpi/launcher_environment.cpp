#include "benchmarks/mpi/launcher_environment.hpp"

#include <array>
#include <charconv>
#include <cstdlib>
#include <cstring>

namespace fb {
namespace {

constexpr std::array<LauncherVariable, 4> variables{{
    {"OMPI_COMM_WORLD_RANK", true},  // Open MPI's mpirun
    {"PMIX_RANK", true},             // PMIx servers: prterun, srun --mpi=pmix
    {"PMI_RANK", true},              // PMI-1/2: MPICH's mpiexec (Hydra), srun --mpi=pmi2
    {"SLURM_PROCID", false},         // srun, whatever its --mpi plugin
}};

std::optional<int> non_negative_integer(const char* text) {
  const char* end = text + std::strlen(text);
  int value = -1;
  const auto [stop, error] = std::from_chars(text, end, value);
  if (error != std::errc() || stop != end || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::span<const LauncherVariable> launcher_variables() { return variables; }

LauncherEnvironment read_launcher_environment(const EnvironmentLookup& lookup) {
  LauncherEnvironment environment;
  for (const LauncherVariable& variable : variables) {
    const char* value = lookup(variable.name);
    if (!value) continue;
    environment.mpi_launcher = environment.mpi_launcher || variable.wires_up_mpi;
    if (!environment.rank) environment.rank = non_negative_integer(value);
  }
  return environment;
}

LauncherEnvironment read_launcher_environment() {
  return read_launcher_environment([](const char* name) { return std::getenv(name); });
}

int launcher_rank() { return read_launcher_environment().rank.value_or(0); }

}  // namespace fb
