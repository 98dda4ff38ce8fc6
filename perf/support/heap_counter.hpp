#pragma once
// The heap a benchmark binary holds, counted exactly: linking perf/support/heap_counter.cpp
// replaces the global operator new and delete of that binary. Unlike the peak resident set, the
// peak does not depend on what ran before, so one binary can measure several sizes in turn.

#include <cstddef>

namespace fb::perf {

// Bytes held now.
std::size_t heap_bytes();

// Starts a new peak at what is held now; returns that.
std::size_t reset_heap_peak();

// The most bytes held since the last reset_heap_peak().
std::size_t heap_peak_bytes();

}  // namespace fb::perf
