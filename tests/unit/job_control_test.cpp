// The job control of a single-process backend (the cuda copy backend): it agrees with itself,
// gathers its own string and, asked to end the job, ends this process with the code given.

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
