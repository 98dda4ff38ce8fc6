#include "common/host_environment.hpp"
#include "results/provenance.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fb {
namespace {

TEST(DescribeRankHosts, FoldsConsecutiveRanksOnOneHost) {
  EXPECT_EQ(describe_rank_hosts({"a", "a", "b"}), "a (ranks 0-1), b (rank 2)");
  EXPECT_EQ(describe_rank_hosts({"a"}), "a (rank 0)");
  // A host that comes back after another is listed again: ranks are not regrouped.
  EXPECT_EQ(describe_rank_hosts({"a", "b", "a", "a"}), "a (rank 0), b (rank 1), a (ranks 2-3)");
  EXPECT_EQ(describe_rank_hosts({}), "");
}

TEST(ShellCommandLine, QuotesOnlyWhatTheShellWouldSplitOrInterpret) {
  std::vector<std::string> args{"fabricbench", "run", "-D", "my results", "--csv", "it's.csv", "-e", "1M", ""};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  EXPECT_EQ(shell_command_line(static_cast<int>(argv.size()), argv.data()),
            R"(fabricbench run -D 'my results' --csv 'it'\''s.csv' -e 1M '')");
}

TEST(RelevantEnvironment, KeepsTuningAndDropsLauncherWiring) {
  EXPECT_TRUE(is_relevant_environment_variable("NCCL_ALGO"));
  EXPECT_TRUE(is_relevant_environment_variable("OMPI_MCA_btl"));
  EXPECT_TRUE(is_relevant_environment_variable("UCX_TLS"));
  EXPECT_FALSE(is_relevant_environment_variable("OMPI_MCA_orte_hnp_uri"));
  EXPECT_FALSE(is_relevant_environment_variable("OMPI_MCA_ess_base_jobid"));
  EXPECT_FALSE(is_relevant_environment_variable("PATH"));
  EXPECT_FALSE(is_relevant_environment_variable("HOME"));
  EXPECT_TRUE(is_relevant_environment_variable("SLURM_JOB_ID"));
  EXPECT_TRUE(is_relevant_environment_variable("SLURM_JOB_NODELIST"));
  EXPECT_TRUE(is_relevant_environment_variable("SLURM_JOB_PARTITION"));
  // Per rank or per step: differs between ranks of one run.
  EXPECT_FALSE(is_relevant_environment_variable("SLURM_PROCID"));
  EXPECT_FALSE(is_relevant_environment_variable("SLURM_JOB_ID_EXTRA"));
}

TEST(RunId, SortableUtcPrefixAndRandomSuffix) {
  const std::string id = new_run_id();
  ASSERT_EQ(id.size(), std::string("20261122T231504Z-3fa9c1").size()) << id;
  EXPECT_EQ(id[8], 'T');
  EXPECT_EQ(id[15], 'Z');
  EXPECT_EQ(id[16], '-');
}

}  // namespace
}  // namespace fb
