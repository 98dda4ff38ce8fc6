// Which launcher started this process, read from its environment before MPI_Init: the rank that
// prints errors found before MPI exists, and whether doctor may initialize MPI at all.

#include "benchmarks/mpi/launcher_environment.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace fb {
namespace {

LauncherEnvironment read(const std::map<std::string, std::string>& variables) {
  return read_launcher_environment([&](const char* name) -> const char* {
    const auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  });
}

TEST(LauncherEnvironment, StartedAloneHasNoRankAndNoMpiLauncher) {
  const LauncherEnvironment environment = read({{"HOME", "/root"}, {"SLURM_JOB_ID", "17"}});
  EXPECT_FALSE(environment.rank.has_value());
  EXPECT_FALSE(environment.mpi_launcher);
}

TEST(LauncherEnvironment, OpenMpiMpirunGivesRankAndWiresUpMpi) {
  const LauncherEnvironment environment =
      read({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"PMIX_RANK", "3"}});
  EXPECT_EQ(environment.rank, 3);
  EXPECT_TRUE(environment.mpi_launcher);
}

TEST(LauncherEnvironment, MpichHydraGivesRankAndWiresUpMpi) {
  const LauncherEnvironment environment = read({{"PMI_RANK", "5"}, {"PMI_SIZE", "8"}});
  EXPECT_EQ(environment.rank, 5);
  EXPECT_TRUE(environment.mpi_launcher);
}

// srun --mpi=pmix sets both; the MPI runtime's own number wins.
TEST(LauncherEnvironment, SrunWithPmixTakesThePmixRank) {
  const LauncherEnvironment environment = read({{"SLURM_PROCID", "7"}, {"PMIX_RANK", "2"}});
  EXPECT_EQ(environment.rank, 2);
  EXPECT_TRUE(environment.mpi_launcher);
}

// srun --mpi=none: the rank is known, but MPI_Init would start a singleton per task.
TEST(LauncherEnvironment, SrunWithoutPmiGivesRankButNoMpiLauncher) {
  const LauncherEnvironment environment = read({{"SLURM_PROCID", "6"}, {"SLURM_NTASKS", "8"}});
  EXPECT_EQ(environment.rank, 6);
  EXPECT_FALSE(environment.mpi_launcher);
}

TEST(LauncherEnvironment, ValueThatIsNoRankIsSkippedForTheNextVariable) {
  EXPECT_EQ(read({{"OMPI_COMM_WORLD_RANK", "three"}, {"SLURM_PROCID", "1"}}).rank, 1);
  EXPECT_EQ(read({{"PMI_RANK", "-1"}, {"SLURM_PROCID", "4"}}).rank, 4);
  EXPECT_EQ(read({{"PMI_RANK", "2x"}}).rank, std::nullopt);
  EXPECT_EQ(read({{"PMIX_RANK", ""}}).rank, std::nullopt);
  // A launcher variable still says who started the process, whatever its value.
  EXPECT_TRUE(read({{"PMIX_RANK", ""}}).mpi_launcher);
}

TEST(LauncherEnvironment, OnlySlurmProcidLeavesMpiUnwired) {
  int unwired = 0;
  for (const LauncherVariable& variable : launcher_variables()) {
    if (variable.wires_up_mpi) continue;
    ++unwired;
    EXPECT_STREQ(variable.name, "SLURM_PROCID");
  }
  EXPECT_EQ(unwired, 1);
  EXPECT_EQ(launcher_variables().size(), 4U);
}

}  // namespace
}  // namespace fb
