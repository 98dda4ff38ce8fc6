#pragma once
// The validation pattern: every element a rank contributes depends on the rank and the element's
// index, so a result that is stale, shifted, taken from the wrong rank or the wrong block fails.
// Values are small integers (sums) or powers of two with signs (products), so every reduction is
// exact in floating point whatever order the library combines ranks in, and integer overflow
// wraps the same way (modulo 2^bits) in the library and here.

#include "core/dtype.hpp"

#include <concepts>
#include <cstdint>
#include <span>
#include <type_traits>

namespace fb {

// The integer value `rank` contributes at `index` of its (whole) input buffer.
inline std::int64_t pattern_integer(int rank, std::uint64_t index, ReduceOp redop) {
  const auto r = static_cast<std::uint64_t>(rank);
  if (redop == ReduceOp::prod) {
    // Mostly 1, with rank-dependent 2s and -1s: products stay exact powers of two.
    if ((r * 5 + index * 3) % 8 == 0) return 2;
    if ((r + index) % 5 == 0) return -1;
    return 1;
  }
  return static_cast<std::int64_t>((r * 7 + index * 13 + (index >> 7) * 3) % 31) - 15;
}

template <class T>
T pattern_value(int rank, std::uint64_t index, ReduceOp redop) {
  // Negative values wrap into unsigned types by design; the expected values wrap identically.
  return static_cast<T>(pattern_integer(rank, index, redop));
}

template <class T>
T combine(T a, T b, ReduceOp redop) {
  if constexpr (std::integral<T>) {
    // Unsigned arithmetic wraps without undefined behaviour; C++20 defines the conversion back.
    using U = std::make_unsigned_t<T>;
    using Wide = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    switch (redop) {
      case ReduceOp::sum: return static_cast<T>(static_cast<U>(static_cast<Wide>(static_cast<U>(a)) + static_cast<U>(b)));
      case ReduceOp::prod: return static_cast<T>(static_cast<U>(static_cast<Wide>(static_cast<U>(a)) * static_cast<U>(b)));
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
T expected_reduction(int nranks, std::uint64_t index, ReduceOp redop) {
  T value = pattern_value<T>(0, index, redop);
  for (int rank = 1; rank < nranks; ++rank) value = combine(value, pattern_value<T>(rank, index, redop), redop);
  return value;
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
