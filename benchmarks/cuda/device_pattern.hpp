#pragma once
// The validation pattern (core/pattern.hpp) on device buffers: a kernel writes it and a kernel
// counts the elements that differ from what an op must produce, so checking a 1 GiB buffer costs
// one 8-byte copy back to the host, not a host pass over every element.

#include "common/dtype.hpp"
#include "benchmarks/core/pattern.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace fb {

// Writes rank `rank`'s pattern for `redop` into `count` elements at `buffer` (device memory, or
// mapped pinned host memory), starting at pattern index `first_index`. Asynchronous on `stream`.
void fill_pattern_on_device(void* buffer, DataType type, std::uint64_t count, int rank, std::uint64_t first_index,
                            ReduceOp redop, cudaStream_t stream);

// Writes into `count` elements at `buffer` a value each can never correctly hold after the op
// that `expected` describes (reset_value_at: NaN, or the expected integer's complement), so an op
// that leaves an element unwritten fails the check. Asynchronous on `stream`.
void reset_output_on_device(void* buffer, DataType type, std::uint64_t count, const ExpectedPattern& expected,
                            cudaStream_t stream);

// Counts the elements of `buffer` that are not `expected`: exactly, except for reduced 16-bit
// floats (validation_bound), on the device of `stream`; waits for `stream`.
std::uint64_t count_wrong_on_device(const void* buffer, DataType type, std::uint64_t count,
                                    const ExpectedPattern& expected, cudaStream_t stream);

}  // namespace fb
