#include "benchmarks/core/harness.hpp"

#include <gtest/gtest.h>

namespace fb {
namespace {

// -n auto: as many iterations as last --min-time, never fewer than -n nor more than --max-iters.
TEST(IterationsToFill, RunsAsManyAsFillTheMinimumTimeWithinTheBounds) {
  // 8 B ping-pong, 0.56 us a round trip: 0.1 s is 178,572 of them, past the cap.
  EXPECT_EQ(iterations_to_fill(0.1, 0.56e-6, 20, 100000), 100000);
  EXPECT_EQ(iterations_to_fill(0.1, 0.56e-6, 20, 1000000), 178572);
  // A few milliseconds each: the count that reaches 0.1 s, rounded up.
  EXPECT_EQ(iterations_to_fill(0.1, 0.003, 20, 100000), 34);
  // A 4 MiB bw window of 64 messages, 22 ms at 12 GB/s: 20 already last 0.45 s, so the floor.
  EXPECT_EQ(iterations_to_fill(0.1, 0.0224, 20, 100000), 20);
  EXPECT_EQ(iterations_to_fill(1.0, 0.0224, 20, 100000), 45);
  // An iteration the clock did not see is not a division by zero.
  EXPECT_EQ(iterations_to_fill(0.1, 0, 20, 500), 500);
}

}  // namespace
}  // namespace fb
