// The job control of a single-process backend (the cuda copy backend): it agrees with itself,
// gathers its own string and, asked to end the job, ends this process with the code given. And
// how a process that drives several GPUs stands for each of their ranks.

#include "benchmarks/core/job_control.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>

namespace fb {
namespace {

using ::testing::ElementsAre;

TEST(SingleProcessJob, AgreesWithItself) {
  SingleProcessJob job;
  EXPECT_TRUE(job.all_agree(true));
  EXPECT_FALSE(job.all_agree(false));
}

TEST(SingleProcessJob, GathersItsOwnString) {
  SingleProcessJob job;
  EXPECT_THAT(job.gather_at_reporting_rank("mlx5_0/1 ok"), ElementsAre("mlx5_0/1 ok"));
  EXPECT_THAT(job.gather_at_reporting_rank(""), ElementsAre(""));
}

// -g 2 on two processes: ranks 0 and 1 are process 0's GPUs, 2 and 3 process 1's; each rank has
// its process's string, so the port counters of process 1's host are not taken for rank 1's.
TEST(PerDeviceRank, EachProcessStandsForItsConsecutiveRanks) {
  EXPECT_THAT(per_device_rank({"host a ports", "host b ports"}, 2),
              ElementsAre("host a ports", "host a ports", "host b ports", "host b ports"));
  EXPECT_THAT(per_device_rank({"a", "", "c"}, 1), ElementsAre("a", "", "c"));
  EXPECT_THAT(per_device_rank(std::vector<std::string>{}, 4), ElementsAre());
}

TEST(SingleProcessJobDeathTest, AbortEndsThisProcessWithTheCodeGiven) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  SingleProcessJob job;
  EXPECT_EXIT(
      {
        std::cerr << "fabricbench: rank 0 on host: failed\n";
        job.abort_all(3);
      },
      ::testing::ExitedWithCode(3), "rank 0 on host: failed");
  EXPECT_EXIT(job.abort_all(5), ::testing::ExitedWithCode(5), "");
}

}  // namespace
}  // namespace fb
