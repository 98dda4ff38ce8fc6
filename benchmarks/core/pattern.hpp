#pragma once
// The validation pattern: every element a rank contributes depends on the rank and the element's
// index, so a result that is stale, shifted, taken from the wrong rank or the wrong block fails.
// Values are small integers (sums) or powers of two with signs (products), so every reduction is
// exact in floating point whatever order the library combines ranks in, and integer overflow
// wraps the same way (modulo 2^bits) in the library and here.
//
// The same functions fill and check device buffers: the GPU backends compile them into kernels
// (cuda/device_pattern.cu), so host and device agree on every value by construction.

#include "common/dtype.hpp"

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#if defined(__CUDACC__)
#define FB_HOST_DEVICE __host__ __device__
#else
#define FB_HOST_DEVICE
#endif

namespace fb {

// The sum pattern has 31 values, so one rank term `rank * 7 % 31` would give ranks 31 apart the
// same data at every index, and a block from rank 31 in place of rank 0's would pass. The term is
// the rank's residue plus one of its higher base-31 digits, the digit chosen by the index (digit
// 1 + index % 4): ranks 31 apart differ wherever their higher digits do, and two ranks below 31^4
// (923,521) differ within any four consecutive elements (tests/unit/pattern_test.cpp). Below 31
// ranks every higher digit is 0 and the pattern is the single-term one.
FB_HOST_DEVICE inline std::uint64_t pattern_rank_term(int rank, std::uint64_t index) {
  const auto r = static_cast<std::uint64_t>(rank);
  std::uint64_t higher = r / 31;
  for (std::uint64_t digit = index % 4; digit > 0; --digit) higher /= 31;
  return (r % 31) * 7 + higher % 31;
}

// The integer value `rank` contributes at `index` of its (whole) input buffer.
FB_HOST_DEVICE inline std::int64_t pattern_integer(int rank, std::uint64_t index, ReduceOp redop) {
  const auto r = static_cast<std::uint64_t>(rank);
  if (redop == ReduceOp::prod) {
    // Mostly 1, with rank-dependent 2s and -1s: products stay exact powers of two.
    if ((r * 5 + index * 3) % 8 == 0) return 2;
    if ((r + index) % 5 == 0) return -1;
    return 1;
  }
  return static_cast<std::int64_t>((pattern_rank_term(rank, index) + index * 13 + (index >> 7) * 3) % 31) - 15;
}

template <class T>
FB_HOST_DEVICE T pattern_value(int rank, std::uint64_t index, ReduceOp redop) {
  // Negative values wrap into unsigned types by design; the expected values wrap identically.
  return static_cast<T>(pattern_integer(rank, index, redop));
}

template <class T>
FB_HOST_DEVICE T combine(T a, T b, ReduceOp redop) {
  if constexpr (std::integral<T>) {
    // Unsigned arithmetic wraps without undefined behaviour; C++20 defines the conversion back.
    using U = std::make_unsigned_t<T>;
    using Wide = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    switch (redop) {
      case ReduceOp::sum:
        return static_cast<T>(static_cast<U>(static_cast<Wide>(static_cast<U>(a)) + static_cast<U>(b)));
      case ReduceOp::prod:
        return static_cast<T>(static_cast<U>(static_cast<Wide>(static_cast<U>(a)) * static_cast<U>(b)));
      case ReduceOp::min: return b < a ? b : a;
      case ReduceOp::max: return a < b ? b : a;
    }
  } else {
    switch (redop) {
      case ReduceOp::sum: return a + b;
      case ReduceOp::prod: return a * b;
      case ReduceOp::min: return b < a ? b : a;
      case ReduceOp::max: return a < b ? b : a;
    }
  }
  return a;
}

// The reduction over ranks 0..nranks-1 of their pattern values at `index`.
template <class T>
FB_HOST_DEVICE T expected_reduction(int nranks, std::uint64_t index, ReduceOp redop) {
  T value = pattern_value<T>(0, index, redop);
  for (int rank = 1; rank < nranks; ++rank) value = combine(value, pattern_value<T>(rank, index, redop), redop);
  return value;
}

// What every element of an output buffer must hold after an op, as one value the device check
// kernel can take: element i is the pattern of a source rank at a pattern index, or the reduction
// over all ranks at that index.
struct ExpectedPattern {
  int nranks = 1;
  ReduceOp redop = ReduceOp::sum;
  bool reduced_over_ranks = false;  // all_reduce, reduce_scatter
  int source_rank = 0;              // when not reduced; -1: the rank is i / block_count
  std::uint64_t block_count = 0;    // elements per rank block when source_rank is -1
  std::uint64_t first_index = 0;    // pattern index of element 0 (of every block)

  // The pattern index of element i and, when not reduced, the rank whose pattern it is.
  FB_HOST_DEVICE std::uint64_t index_of(std::uint64_t i) const {
    return first_index + (source_rank < 0 ? i % block_count : i);
  }
  FB_HOST_DEVICE int rank_of(std::uint64_t i) const {
    return source_rank < 0 ? static_cast<int>(i / block_count) : source_rank;
  }

  template <class T>
  FB_HOST_DEVICE T value_at(std::uint64_t i) const {
    return reduced_over_ranks ? expected_reduction<T>(nranks, index_of(i), redop)
                              : pattern_value<T>(rank_of(i), index_of(i), redop);
  }
};

// How far a 16-bit floating-point result may be from the exact value. Only a reduction rounds:
// all_gather, broadcast, alltoall, sendrecv and the other copies move the sender's bits, so what
// was not reduced over ranks is compared exactly in every type (a tolerance there would accept
// the neighbouring pattern value from 18 ranks in bfloat16). A sum is exact while every partial
// sum is an integer the type holds (|sum| <= 15 n within 2^(mantissa + 1)), otherwise n
// half-units in the last place of the largest partial sum, since the library may add in any order
// and each addition rounds. Products of the pattern's factors (+-1, 2) are powers of two, exact at
// every step in any order, and min/max pick an input: both are exact (a product beyond the type's
// range is infinity: validation_bound). Other types never round.
inline double validation_tolerance(DataType type, const ExpectedPattern& expected) {
  if (!expected.reduced_over_ranks || expected.redop != ReduceOp::sum ||
      (type != DataType::half && type != DataType::bfloat16))
    return 0.0;
  const int mantissa_bits = type == DataType::half ? 10 : 7;
  const double largest_partial_sum = 15.0 * expected.nranks;
  if (largest_partial_sum <= std::ldexp(1.0, mantissa_bits + 1)) return 0.0;
  const double unit_in_last_place =
      std::ldexp(1.0, static_cast<int>(std::floor(std::log2(largest_partial_sum))) - mantissa_bits);
  return expected.nranks * unit_in_last_place / 2;
}

// The magnitude from which round-to-nearest gives infinity in a 16-bit float: the largest finite
// value plus half its unit in the last place, (2 - 2^-(mantissa + 1)) * 2^max_exponent (65520 in
// half). The exact value is formed in float, which holds 2^16 where half does not: from 121 ranks
// the half `prod` pattern reaches 2^16 at some indices (16 factors of 2 among ranks 0, 8, ..., 120),
// and the library's correct answer there is infinity. Other types: no limit the check needs (a
// float product past 2^127 is infinity in the expected value too).
inline double overflow_threshold(DataType type) {
  if (type == DataType::half) return std::ldexp(2.0 - std::ldexp(1.0, -11), 15);
  if (type == DataType::bfloat16) return std::ldexp(2.0 - std::ldexp(1.0, -8), 127);
  return std::numeric_limits<double>::max();
}

// What a checked element of a 16-bit float output may hold, as one value the device kernel takes.
struct ValidationBound {
  double tolerance = 0;                                     // largest accepted |actual - exact|
  double overflow_at = std::numeric_limits<double>::max();  // |exact| that the type rounds to infinity
};

inline ValidationBound validation_bound(DataType type, const ExpectedPattern& expected) {
  return {validation_tolerance(type, expected), overflow_threshold(type)};
}

// Whether `actual` (a 16-bit float result, widened) is the exact value `exact` as the type holds
// it: the same infinity where the exact value is beyond the type's range, else within the
// tolerance. A NaN compares false both ways, so it is never accepted.
FB_HOST_DEVICE inline bool accepted_value(double actual, double exact, const ValidationBound& bound) {
  if (exact >= bound.overflow_at) return actual >= bound.overflow_at;
  if (exact <= -bound.overflow_at) return actual <= -bound.overflow_at;
  const double difference = actual - exact;
  return difference <= bound.tolerance && -difference <= bound.tolerance;
}

// What an output element is reset to before a checked iteration, so an op that writes nothing
// there fails: for floating-point types a NaN, which no op produces from the pattern's finite
// inputs (no 0 * infinity, no infinity - infinity) and the check never accepts; for integers the
// complement of the expected value, which differs from it in every bit (an integer reduction
// wraps and may produce any value, so no one integer is impossible for every op).
template <class T>
FB_HOST_DEVICE T reset_value_at(const ExpectedPattern& expected, std::uint64_t i) {
  if constexpr (std::integral<T>)
    return static_cast<T>(~expected.value_at<T>(i));
  else
    return static_cast<T>(NAN);  // the macro, not numeric_limits: it also compiles for the device
}

// Writes rank `rank`'s pattern, starting at global element `first_index`.
template <class T>
void fill_pattern(std::span<T> buffer, int rank, std::uint64_t first_index, ReduceOp redop) {
  for (std::uint64_t i = 0; i < buffer.size(); ++i) buffer[i] = pattern_value<T>(rank, first_index + i, redop);
}

// Counts elements that differ from `expected(i)`.
template <class T, class Expected>
std::uint64_t count_wrong(std::span<const T> actual, Expected&& expected) {
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < actual.size(); ++i) wrong += actual[i] != static_cast<T>(expected(i)) ? 1 : 0;
  return wrong;
}

}  // namespace fb
