#include "benchmarks/core/harness.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

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

// The loop's own time, which time_back_to_back returns, is what its per-iteration times add up to:
// they tile it (each from the previous one's end), so that over the count is the loop mean that
// osu_latency reports from two clock reads.
TEST(TimeBackToBack, ReturnsTheLoopTimeItsIterationsTile) {
  std::vector<double> seconds(50, -1.0);
  std::uint64_t spun = 0;
  const double loop_s = time_back_to_back(seconds, [&] {
    // Iterations of different lengths, so the tiling is tested on unequal intervals.
    for (std::uint64_t i = 0; i < 1000 * (spun % 7 + 1); ++i) asm volatile("" : : "r"(i));
    ++spun;
  });
  EXPECT_EQ(spun, 50u);
  double sum_s = 0;
  for (const double s : seconds) {
    EXPECT_GE(s, 0.0);
    sum_s += s;
  }
  EXPECT_GT(loop_s, 0.0);
  // The same ticks, converted each on its own: equal up to rounding of 50 additions.
  EXPECT_NEAR(sum_s, loop_s, loop_s * 1e-12);
  EXPECT_EQ(time_back_to_back(std::span<double>(), [] {}), 0.0);
}

}  // namespace
}  // namespace fb
