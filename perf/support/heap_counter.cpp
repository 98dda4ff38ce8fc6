#include "perf/support/heap_counter.hpp"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<std::size_t> held_bytes{0};
std::atomic<std::size_t> peak_bytes{0};

void count_allocation(void* pointer) {
  if (!pointer) throw std::bad_alloc();
  const std::size_t now = held_bytes += malloc_usable_size(pointer);
  std::size_t peak = peak_bytes.load();
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {}
}

void release(void* pointer) {
  if (pointer) held_bytes -= malloc_usable_size(pointer);
  std::free(pointer);
}

}  // namespace

void* operator new(std::size_t size) {
  void* pointer = std::malloc(size);
  count_allocation(pointer);
  return pointer;
}
void operator delete(void* pointer) noexcept { release(pointer); }
void operator delete(void* pointer, std::size_t) noexcept { release(pointer); }

namespace fb::perf {

std::size_t heap_bytes() { return held_bytes.load(); }

std::size_t reset_heap_peak() {
  const std::size_t now = held_bytes.load();
  peak_bytes = now;
  return now;
}

std::size_t heap_peak_bytes() { return peak_bytes.load(); }

}  // namespace fb::perf
