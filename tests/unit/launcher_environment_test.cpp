// Which launcher started this process, read from its environment before MPI_Init: the rank that
// prints errors found before MPI exists, and whether doctor may initialize MPI at all.

#include "benchmarks/mpi/launcher_environment.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
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

// The file scripts/launch/fabricbench.sbatch reads when a rank has ended the job with MPI_Abort.
class RankExitRecord : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() / ("fb-rank-exit-" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  bool record(int rank, const char* host, int exit_code, const char* directory) const {
    return record_rank_exit(
        [directory](const char* name) {
          return std::string_view(name) == rank_exit_directory_variable ? directory : nullptr;
        },
        rank, host, exit_code);
  }
  std::filesystem::path directory_;
};

TEST_F(RankExitRecord, WritesTimeCodeAndHostUnderTheRanksNumber) {
  const auto before_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  ASSERT_TRUE(record(13, "gpu-node-07", 3, directory_.c_str()));
  const auto after_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();

  std::ifstream file(directory_ / "13");
  std::string line;
  ASSERT_TRUE(std::getline(file, line));
  std::istringstream fields(line);
  std::int64_t ended_ns = 0;
  int code = 0;
  std::string host;
  ASSERT_TRUE(fields >> ended_ns >> code >> host) << line;
  EXPECT_GE(ended_ns, before_ns);
  EXPECT_LE(ended_ns, after_ns);
  EXPECT_EQ(code, 3);
  EXPECT_EQ(host, "gpu-node-07");
  EXPECT_FALSE(std::getline(file, line)) << "one line only";
  // Nothing but the rank's file: the temporary it was written under is gone.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(directory_), std::filesystem::directory_iterator()), 1);
}

TEST_F(RankExitRecord, ALaterRecordReplacesTheFileWhole) {
  ASSERT_TRUE(record(2, "node-a", 5, directory_.c_str()));
  ASSERT_TRUE(record(2, "node-a", 3, directory_.c_str()));
  std::ifstream file(directory_ / "2");
  std::string line;
  std::getline(file, line);
  EXPECT_EQ(line.substr(line.find(' ') + 1), "3 node-a");
}

TEST_F(RankExitRecord, NothingWrittenWithoutTheVariableOrAWritableDirectory) {
  EXPECT_FALSE(record(0, "node-a", 3, nullptr));
  EXPECT_FALSE(record(0, "node-a", 3, ""));
  EXPECT_FALSE(record(0, "node-a", 3, (directory_ / "missing").c_str()));
  EXPECT_TRUE(std::filesystem::is_empty(directory_));
}

}  // namespace
}  // namespace fb
