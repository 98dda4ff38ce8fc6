#include "benchmarks/mpi/launcher_environment.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

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

bool record_rank_exit(const EnvironmentLookup& lookup, int rank, std::string_view host, int exit_code) {
  const char* directory_text = lookup(rank_exit_directory_variable);
  if (!directory_text || !*directory_text) return false;
  const std::filesystem::path directory(directory_text);
  const std::filesystem::path final_path = directory / std::to_string(rank);
  const std::filesystem::path temporary_path = directory / fmt::format(".{}.tmp", rank);
  const auto ended_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  {
    std::ofstream file(temporary_path, std::ios::trunc);
    file << fmt::format("{} {} {}\n", ended_ns, exit_code, host);
    file.close();
    if (!file) return false;
  }
  std::error_code error;
  std::filesystem::rename(temporary_path, final_path, error);
  if (!error) return true;
  std::filesystem::remove(temporary_path, error);
  return false;
}

bool record_rank_exit(int rank, std::string_view host, int exit_code) {
  return record_rank_exit([](const char* name) { return std::getenv(name); }, rank, host, exit_code);
}

}  // namespace fb
