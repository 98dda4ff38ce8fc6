#include "benchmarks/core/host_buffer.hpp"
#include "benchmarks/core/pattern.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace fb {
namespace {

// Values at index 0 for ranks 0..3: sum pattern -15, -8, -1, 6; prod pattern 2, 1, 1, 1.
TEST(ExpectedReduction, FloatAndDoubleFourRanks) {
  EXPECT_EQ(expected_reduction<float>(4, 0, ReduceOp::sum), -18.0f);
  EXPECT_EQ(expected_reduction<float>(4, 0, ReduceOp::min), -15.0f);
  EXPECT_EQ(expected_reduction<float>(4, 0, ReduceOp::max), 6.0f);
  EXPECT_EQ(expected_reduction<float>(4, 0, ReduceOp::prod), 2.0f);
  EXPECT_EQ(expected_reduction<double>(4, 0, ReduceOp::sum), -18.0);
  EXPECT_EQ(expected_reduction<double>(4, 0, ReduceOp::min), -15.0);
  EXPECT_EQ(expected_reduction<double>(4, 0, ReduceOp::max), 6.0);
  EXPECT_EQ(expected_reduction<double>(4, 0, ReduceOp::prod), 2.0);
}

TEST(ExpectedReduction, SingleRankIsItsOwnPattern) {
  for (std::uint64_t i = 0; i < 300; ++i)
    EXPECT_EQ(expected_reduction<std::int32_t>(1, i, ReduceOp::sum), pattern_value<std::int32_t>(0, i, ReduceOp::sum));
}

TEST(ExpectedReduction, Uint32WrapsNegativeSums) {
  // -15 + -8 = -23, modulo 2^32.
  EXPECT_EQ(expected_reduction<std::uint32_t>(2, 0, ReduceOp::sum), 4294967273u);
  EXPECT_EQ(expected_reduction<std::uint32_t>(4, 0, ReduceOp::min), 6u);           // -15, -8, -1 wrap to huge values
  EXPECT_EQ(expected_reduction<std::uint32_t>(4, 0, ReduceOp::max), 4294967295u);  // -1
}

TEST(ExpectedReduction, Int8ProductWrapsModulo256) {
  // At index 0, ranks 0, 8, ..., 48 contribute 2 and ten ranks (5, 10, ..., 55 except 40)
  // contribute -1: the product over 56 ranks is +128, which wraps to -128 in int8.
  EXPECT_EQ(expected_reduction<std::int32_t>(56, 0, ReduceOp::prod), 128);
  EXPECT_EQ(expected_reduction<std::int8_t>(56, 0, ReduceOp::prod), std::int8_t{-128});
  EXPECT_EQ(expected_reduction<std::uint8_t>(56, 0, ReduceOp::prod), std::uint8_t{128});
  // Over 64 ranks it is -256: zero modulo 256.
  EXPECT_EQ(expected_reduction<std::int32_t>(64, 0, ReduceOp::prod), -256);
  EXPECT_EQ(expected_reduction<std::int8_t>(64, 0, ReduceOp::prod), std::int8_t{0});
}

TEST(ExpectedReduction, Int8SumWithoutOverflow) {
  EXPECT_EQ(expected_reduction<std::int8_t>(2, 0, ReduceOp::sum), std::int8_t{-23});
  EXPECT_EQ(expected_reduction<std::int8_t>(4, 0, ReduceOp::min), std::int8_t{-15});
}

TEST(Pattern, DependsOnRankAndIndex) {
  for (ReduceOp redop : {ReduceOp::sum, ReduceOp::prod}) {
    bool ranks_differ = false;
    bool indices_differ = false;
    for (std::uint64_t i = 0; i < 64; ++i) {
      ranks_differ = ranks_differ || pattern_integer(0, i, redop) != pattern_integer(1, i, redop);
      indices_differ = indices_differ || pattern_integer(0, i, redop) != pattern_integer(0, i + 1, redop);
    }
    EXPECT_TRUE(ranks_differ) << name_of(redop);
    EXPECT_TRUE(indices_differ) << name_of(redop);
  }
  // Not constant and not zero: a zeroed buffer must fail validation.
  EXPECT_NE(pattern_integer(0, 0, ReduceOp::sum), 0);
}

TEST(Pattern, FillPatternStartsAtTheGivenGlobalIndex) {
  HostBuffer<std::int32_t> buffer(8);
  fill_pattern(buffer.span(), 3, 100, ReduceOp::sum);
  for (std::uint64_t i = 0; i < buffer.size(); ++i)
    EXPECT_EQ(buffer.data()[i], pattern_value<std::int32_t>(3, 100 + i, ReduceOp::sum));
}

// The all_reduce check: every element is the reduction over ranks at its index.
TEST(Validator, AllReduceCountsExactlyTheFlippedElement) {
  constexpr int nranks = 4;
  constexpr std::uint64_t count = 1000;
  for (ReduceOp redop : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max}) {
    SCOPED_TRACE(name_of(redop));
    std::vector<float> result(count);
    for (std::uint64_t i = 0; i < count; ++i) result[i] = expected_reduction<float>(nranks, i, redop);
    const auto expected = [&](std::uint64_t i) { return expected_reduction<float>(nranks, i, redop); };
    EXPECT_EQ(count_wrong(std::span<const float>(result), expected), 0u);
    result[517] += 1.0f;
    EXPECT_EQ(count_wrong(std::span<const float>(result), expected), 1u);
  }
}

// The all_gather layout: block r of the result is rank r's pattern from index 0.
TEST(Validator, AllGatherCountsExactlyTheFlippedElement) {
  constexpr int nranks = 4;
  constexpr std::uint64_t count = 300;
  HostBuffer<std::int32_t> gathered(count * nranks);
  for (int rank = 0; rank < nranks; ++rank)
    fill_pattern(gathered.span().subspan(rank * count, count), rank, 0, ReduceOp::sum);
  const auto expected = [&](std::uint64_t i) {
    return pattern_value<std::int32_t>(static_cast<int>(i / count), i % count, ReduceOp::sum);
  };
  const std::span<const std::int32_t> view = gathered.span();
  EXPECT_EQ(count_wrong(view, expected), 0u);
  gathered.data()[2 * count + 7] ^= 1;
  EXPECT_EQ(count_wrong(view, expected), 1u);
}

// A result whose blocks came from the right ranks but in the wrong order is not correct.
TEST(Validator, AllGatherDetectsSwappedBlocks) {
  constexpr std::uint64_t count = 16;
  HostBuffer<std::int32_t> gathered(count * 2);
  fill_pattern(gathered.span().first(count), 1, 0, ReduceOp::sum);
  fill_pattern(gathered.span().last(count), 0, 0, ReduceOp::sum);
  const std::span<const std::int32_t> view = gathered.span();
  EXPECT_GT(count_wrong(view,
                        [&](std::uint64_t i) {
                          return pattern_value<std::int32_t>(static_cast<int>(i / count), i % count, ReduceOp::sum);
                        }),
            0u);
}

// The alltoall layout seen by rank `me`: block s is block `me` of rank s's input.
TEST(Validator, AlltoallCountsExactlyTheFlippedElement) {
  constexpr int nranks = 3;
  constexpr int me = 2;
  constexpr std::uint64_t count = 200;
  HostBuffer<double> received(count * nranks);
  for (int sender = 0; sender < nranks; ++sender)
    fill_pattern(received.span().subspan(sender * count, count), sender, me * count, ReduceOp::sum);
  const std::uint64_t own_block_start = me * count;
  const auto expected = [&](std::uint64_t i) {
    return pattern_value<double>(static_cast<int>(i / count), own_block_start + i % count, ReduceOp::sum);
  };
  const std::span<const double> view = received.span();
  EXPECT_EQ(count_wrong(view, expected), 0u);
  received.data()[count + 3] = -received.data()[count + 3] + 0.5;
  EXPECT_EQ(count_wrong(view, expected), 1u);
}

}  // namespace
}  // namespace fb

namespace fb {
namespace {

// The device check kernel takes an ExpectedPattern; on the host it must describe exactly what the
// MPI ops' own checks expect for the same layouts.
TEST(ExpectedPatternOnHost, AllGatherAndAlltoallBlocks) {
  constexpr int nranks = 4;
  constexpr std::uint64_t count = 50;
  constexpr int rank = 2;
  const ExpectedPattern gathered{.nranks = nranks, .source_rank = -1, .block_count = count};
  const ExpectedPattern exchanged{.nranks = nranks,
                                  .source_rank = -1,
                                  .block_count = count,
                                  .first_index = rank * count};
  for (std::uint64_t i = 0; i < count * nranks; ++i) {
    ASSERT_EQ(gathered.value_at<std::int32_t>(i),
              pattern_value<std::int32_t>(static_cast<int>(i / count), i % count, ReduceOp::sum));
    ASSERT_EQ(exchanged.value_at<std::int32_t>(i),
              pattern_value<std::int32_t>(static_cast<int>(i / count), rank * count + i % count, ReduceOp::sum));
  }
}

TEST(ExpectedPatternOnHost, ReduceScatterBlockAndSingleSource) {
  constexpr int nranks = 3;
  constexpr std::uint64_t count = 40;
  const ExpectedPattern scattered{.nranks = nranks,
                                  .redop = ReduceOp::max,
                                  .reduced_over_ranks = true,
                                  .first_index = 2 * count};
  const ExpectedPattern from_root{.nranks = nranks, .source_rank = 1};
  for (std::uint64_t i = 0; i < count; ++i) {
    ASSERT_EQ(scattered.value_at<double>(i), expected_reduction<double>(nranks, 2 * count + i, ReduceOp::max));
    ASSERT_EQ(from_root.value_at<std::int64_t>(i), pattern_value<std::int64_t>(1, i, ReduceOp::sum));
  }
  // A different source rank is a different pattern, so a broadcast from the wrong root is caught.
  const ExpectedPattern from_other{.nranks = nranks, .source_rank = 2};
  int differing = 0;
  for (std::uint64_t i = 0; i < count; ++i)
    differing += from_root.value_at<std::int64_t>(i) != from_other.value_at<std::int64_t>(i) ? 1 : 0;
  EXPECT_GT(differing, static_cast<int>(count) / 2);
}

// An all_reduce's (or reduce_scatter's) expectation: the values reduced over `nranks` ranks.
ExpectedPattern reduced(int nranks, ReduceOp redop) {
  return {.nranks = nranks, .redop = redop, .reduced_over_ranks = true};
}

TEST(ValidationTolerance, ExactWhereEveryPartialSumIsRepresentable) {
  // |sum| <= 15 n: half holds integers to 2048 (n <= 136), bfloat16 to 256 (n <= 17).
  EXPECT_EQ(validation_tolerance(DataType::half, reduced(136, ReduceOp::sum)), 0.0);
  EXPECT_GT(validation_tolerance(DataType::half, reduced(137, ReduceOp::sum)), 0.0);
  EXPECT_EQ(validation_tolerance(DataType::bfloat16, reduced(17, ReduceOp::sum)), 0.0);
  EXPECT_GT(validation_tolerance(DataType::bfloat16, reduced(18, ReduceOp::sum)), 0.0);
  // Other types and other reductions never round.
  EXPECT_EQ(validation_tolerance(DataType::float32, reduced(100000, ReduceOp::sum)), 0.0);
  EXPECT_EQ(validation_tolerance(DataType::int8, reduced(100000, ReduceOp::sum)), 0.0);
  EXPECT_EQ(validation_tolerance(DataType::bfloat16, reduced(100000, ReduceOp::max)), 0.0);
  EXPECT_EQ(validation_tolerance(DataType::half, reduced(100000, ReduceOp::prod)), 0.0);
}

TEST(ValidationTolerance, GrowsWithRanksButStaysBelowTheValuesRange) {
  // 64 ranks in bfloat16: sums up to 960, ulp 4 there, 64 roundings of half an ulp.
  EXPECT_DOUBLE_EQ(validation_tolerance(DataType::bfloat16, reduced(64, ReduceOp::sum)), 64 * 4.0 / 2);
  EXPECT_LT(validation_tolerance(DataType::half, reduced(512, ReduceOp::sum)), 15.0 * 512);
}

TEST(ValidationTolerance, WhatWasNotReducedIsComparedExactlyInEveryType) {
  // bfloat16 at 18 ranks: a reduced sum may be 18 off (sums up to 270, ulp 2 there, 18 roundings
  // of half an ulp), but all_gather, broadcast, alltoall and sendrecv only move the pattern's own
  // values, which differ by 1: with the reduction's tolerance a neighbour's value would pass.
  EXPECT_DOUBLE_EQ(validation_tolerance(DataType::bfloat16, reduced(18, ReduceOp::sum)), 18.0);
  const ExpectedPattern gathered{.nranks = 18, .source_rank = -1, .block_count = 64};  // all_gather, alltoall
  const ExpectedPattern from_root{.nranks = 18, .source_rank = 5};                     // broadcast, sendrecv
  for (DataType type : all_data_types()) {
    SCOPED_TRACE(name_of(type));
    for (const ExpectedPattern& moved : {gathered, from_root}) {
      EXPECT_EQ(validation_tolerance(type, moved), 0.0);
      ExpectedPattern at_scale = moved;
      at_scale.nranks = 100000;
      EXPECT_EQ(validation_tolerance(type, at_scale), 0.0);
    }
  }
  const ValidationBound bound = validation_bound(DataType::bfloat16, gathered);
  for (std::uint64_t i = 0; i < 18 * 64; ++i) {
    const double exact = gathered.value_at<double>(i);
    ASSERT_TRUE(accepted_value(exact, exact, bound));
    ASSERT_FALSE(accepted_value(exact + 1, exact, bound));
    ASSERT_FALSE(accepted_value(exact - 1, exact, bound));
  }
}

TEST(ValidationTolerance, HalfProductAt121RanksIsInfinityWhereItPassesTheRange) {
  // At index 0 the factor 2 comes from ranks 0, 8, ..., 120: 16 of them, 2^16 = 65536, beyond
  // half's largest finite 65504, and rounding to nearest gives infinity from 65520 on. At index 1
  // it comes from ranks 1, 9, ..., 113: 2^15, exact. Every partial product is a power of two no
  // larger than the whole, so no step before the last rounds: the tolerance is 0.
  const ExpectedPattern product = reduced(121, ReduceOp::prod);
  const double beyond = expected_reduction<double>(121, 0, ReduceOp::prod);
  const double within = expected_reduction<double>(121, 1, ReduceOp::prod);
  ASSERT_EQ(std::fabs(beyond), 65536.0);
  ASSERT_EQ(std::fabs(within), 32768.0);
  const ValidationBound bound = validation_bound(DataType::half, product);
  EXPECT_EQ(bound.tolerance, 0.0);
  EXPECT_EQ(bound.overflow_at, 65520.0);
  const double infinity = std::numeric_limits<double>::infinity();
  // The library's right answer at index 0 is the infinity of the product's sign...
  EXPECT_TRUE(accepted_value(std::copysign(infinity, beyond), beyond, bound));
  EXPECT_FALSE(accepted_value(-std::copysign(infinity, beyond), beyond, bound));
  // ... and the largest finite half, one step below it, is wrong.
  EXPECT_FALSE(accepted_value(std::copysign(65504.0, beyond), beyond, bound));
  // At index 1 the product itself, and not its neighbours (half's steps: 16 below 2^15, 32 above).
  EXPECT_TRUE(accepted_value(within, within, bound));
  EXPECT_FALSE(accepted_value(within + std::copysign(32.0, within), within, bound));
  EXPECT_FALSE(accepted_value(within - std::copysign(16.0, within), within, bound));
  EXPECT_FALSE(accepted_value(std::copysign(infinity, within), within, bound));
  // Below 121 ranks nothing passes the range; bfloat16 has float's range and holds 2^16.
  EXPECT_LT(std::fabs(expected_reduction<double>(120, 0, ReduceOp::prod)), 65520.0);
  EXPECT_TRUE(accepted_value(beyond, beyond, validation_bound(DataType::bfloat16, product)));
}

TEST(ValidationTolerance, ANaNIsNeverAccepted) {
  const double not_a_number = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(accepted_value(not_a_number, 3.0, validation_bound(DataType::half, reduced(4096, ReduceOp::sum))));
  EXPECT_FALSE(accepted_value(not_a_number, 65536.0, validation_bound(DataType::half, reduced(121, ReduceOp::prod))));
}

TEST(ResetValue, NoOutputElementCanHoldItAfterACorrectOp) {
  // Integers: the complement of the expected value, also where a reduction wraps (int8 sums over
  // 1000 ranks cover every value, so no single integer would do).
  const ExpectedPattern wrapped = reduced(1000, ReduceOp::sum);
  const ExpectedPattern gathered{.nranks = 8, .source_rank = -1, .block_count = 16};
  for (std::uint64_t i = 0; i < 128; ++i) {
    ASSERT_NE(reset_value_at<std::int8_t>(wrapped, i), wrapped.value_at<std::int8_t>(i));
    ASSERT_NE(reset_value_at<std::uint8_t>(wrapped, i), wrapped.value_at<std::uint8_t>(i));
    ASSERT_NE(reset_value_at<std::int64_t>(gathered, i), gathered.value_at<std::int64_t>(i));
    ASSERT_NE(reset_value_at<std::uint32_t>(gathered, i), gathered.value_at<std::uint32_t>(i));
  }
  // Floating point: NaN, which equals nothing and which the 16-bit check refuses.
  EXPECT_TRUE(std::isnan(reset_value_at<float>(gathered, 0)));
  EXPECT_TRUE(std::isnan(reset_value_at<double>(wrapped, 0)));
  EXPECT_FALSE(accepted_value(static_cast<double>(reset_value_at<float>(gathered, 3)), gathered.value_at<double>(3),
                              validation_bound(DataType::bfloat16, gathered)));
}

}  // namespace
}  // namespace fb

namespace fb {
namespace {

// The sum pattern's first four elements of two ranks.
bool first_four_equal(int a, int b) {
  for (std::uint64_t i = 0; i < 4; ++i)
    if (pattern_integer(a, i, ReduceOp::sum) != pattern_integer(b, i, ReduceOp::sum)) return false;
  return true;
}

TEST(Pattern, RanksThirtyOneApartDiffer) {
  // A rank term of 31 values alone repeats every 31 ranks: rank 31's block would pass for rank 0's.
  for (int rank : {0, 1, 30, 31, 100, 960, 961, 29790, 29791})
    for (int apart : {31, 62, 961, 29791, 31 * 31 * 31 * 31 - 31})
      EXPECT_FALSE(first_four_equal(rank, rank + apart)) << rank << " and " << rank + apart;
}

TEST(Pattern, EveryPairOfRanksDiffersWithinFourElements) {
  // Exhaustive over the first 1,200 ranks (past 31^2 = 961, so two higher digits vary), at four
  // starting offsets: any four consecutive elements tell any two of them apart.
  constexpr int ranks = 1200;
  for (std::uint64_t start : {0U, 1U, 129U, 1000003U}) {
    std::vector<std::uint64_t> keys(ranks);
    for (int r = 0; r < ranks; ++r)
      for (std::uint64_t i = 0; i < 4; ++i)
        keys[static_cast<std::size_t>(r)] =
            keys[static_cast<std::size_t>(r)] * 31 +
            static_cast<std::uint64_t>(pattern_integer(r, start + i, ReduceOp::sum) + 15);
    std::vector<std::uint64_t> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "from element " << start;
  }
}

TEST(Pattern, SumValuesStayWithinFifteen) {
  for (int rank : {0, 31, 961, 123456, 2147483647})
    for (std::uint64_t i = 0; i < 512; ++i) {
      EXPECT_GE(pattern_integer(rank, i, ReduceOp::sum), -15);
      EXPECT_LE(pattern_integer(rank, i, ReduceOp::sum), 15);
    }
}

}  // namespace
}  // namespace fb
