#pragma once
// Which patterns the copy backend's check writes (benchmarks/cuda/copy_backend.cpp). Host-side
// only, so tests/gpu/copy_check_test.cpp checks the choice without a GPU.
//
// Each direction of a route copies its own source pattern (pattern rank = direction), so a copy
// that wrote the other direction's data is caught. Before the checked iteration each destination
// is overwritten with a reset pattern that differs from the expected one at every byte, so a copy
// that wrote nothing (or only part) is counted wrong, not passed on the timed iterations' data.

#include "benchmarks/core/pattern.hpp"

#include <cstddef>

namespace fb {

struct CopyCheckPatterns {
  std::size_t directions = 1;

  // The pattern rank of direction d's source data, and what its destination must then hold.
  int source_rank(std::size_t d) const { return static_cast<int>(d); }
  ExpectedPattern expected(std::size_t d) const {
    ExpectedPattern pattern;
    pattern.source_rank = source_rank(d);
    return pattern;
  }
  // The pattern rank written into direction d's destination before the checked copy: past every
  // source rank and below 31, so it differs from each of them by a non-zero multiple of 7 modulo
  // 31 at every index (core/pattern.hpp), in every byte.
  int reset_rank(std::size_t d) const { return static_cast<int>(directions + d); }
};

}  // namespace fb
