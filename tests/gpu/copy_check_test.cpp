// The copy backend's check, on host buffers standing in for the device ones: the same patterns
// (benchmarks/cuda/copy_check.hpp) and the same pattern functions the device kernels run.
#include "benchmarks/core/pattern.hpp"
#include "benchmarks/cuda/copy_check.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace fb {
namespace {

constexpr std::size_t bytes = 100'003;  // not a multiple of any of the pattern's periods

std::vector<std::uint8_t> filled(int rank) {
  std::vector<std::uint8_t> buffer(bytes);
  fill_pattern<std::uint8_t>(buffer, rank, 0, ReduceOp::sum);
  return buffer;
}

std::uint64_t wrong_in(const std::vector<std::uint8_t>& destination, const ExpectedPattern& expected) {
  return count_wrong<std::uint8_t>(destination, [&](std::uint64_t i) { return expected.value_at<std::uint8_t>(i); });
}

TEST(CopyCheck, ACopyThatWroteNothingIsWrongInEveryByte) {
  for (std::size_t directions : {1U, 2U}) {
    const CopyCheckPatterns patterns{directions};
    for (std::size_t d = 0; d < directions; ++d) {
      // The destination as the reset leaves it; the checked copy never ran.
      const std::vector<std::uint8_t> destination = filled(patterns.reset_rank(d));
      EXPECT_EQ(wrong_in(destination, patterns.expected(d)), bytes) << directions << " directions, direction " << d;
    }
  }
}

TEST(CopyCheck, ACopyThatStoppedHalfWayIsWrongInTheRestOnly) {
  const CopyCheckPatterns patterns{1};
  std::vector<std::uint8_t> destination = filled(patterns.reset_rank(0));
  const std::vector<std::uint8_t> source = filled(patterns.source_rank(0));
  std::memcpy(destination.data(), source.data(), bytes / 2);
  EXPECT_EQ(wrong_in(destination, patterns.expected(0)), bytes - bytes / 2);
}

TEST(CopyCheck, TheOtherDirectionsDataIsWrongInEveryByte) {
  const CopyCheckPatterns patterns{2};
  EXPECT_EQ(wrong_in(filled(patterns.source_rank(1)), patterns.expected(0)), bytes);
  EXPECT_EQ(wrong_in(filled(patterns.source_rank(0)), patterns.expected(1)), bytes);
  // And a correct copy passes.
  EXPECT_EQ(wrong_in(filled(patterns.source_rank(0)), patterns.expected(0)), 0U);
  EXPECT_EQ(wrong_in(filled(patterns.source_rank(1)), patterns.expected(1)), 0U);
}

}  // namespace
}  // namespace fb
