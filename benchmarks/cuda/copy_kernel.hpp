#pragma once
// The SM copy: a kernel on the stream's device moves the bytes, reading and writing through
// whatever memory the pointers name (its own memory, a peer GPU's, mapped pinned host memory), as
// nvbandwidth's *_sm tests do. The copy-engine counterpart is cudaMemcpyAsync.

#include <cuda_runtime_api.h>

#include <cstddef>

namespace fb {

// Enqueues a copy of `bytes` from `source` to `destination` on `stream`, run by `blocks` blocks.
void launch_copy_kernel(void* destination, const void* source, std::size_t bytes, unsigned blocks, cudaStream_t stream);

// Enough blocks to keep every SM of `device` busy.
unsigned copy_kernel_blocks(int device);

}  // namespace fb
