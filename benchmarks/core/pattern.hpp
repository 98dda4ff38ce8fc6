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

// How far a 16-bit floating-point result may be from the exact value: 0 while every partial sum
// of a reduction is an integer the type holds exactly (|sum| <= 15 n within 2^(mantissa + 1)),
// otherwise n half-units in the last place of the largest partial sum, since the library may add
// in any order and each addition rounds. Other types and other reductions are always exact.
inline double validation_tolerance(DataType type, ReduceOp redop, int nranks) {
  if (redop != ReduceOp::sum || (type != DataType::half && type != DataType::bfloat16)) return 0.0;
  const int mantissa_bits = type == DataType::half ? 10 : 7;
  const double largest_partial_sum = 15.0 * nranks;
  if (largest_partial_sum <= std::ldexp(1.0, mantissa_bits + 1)) return 0.0;
  const double unit_in_last_place =
      std::ldexp(1.0, static_cast<int>(std::floor(std::log2(largest_partial_sum))) - mantissa_bits);
  return nranks * unit_in_last_place / 2;
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
