#pragma once
// Large arrays backed by 2 MiB pages where the kernel offers them (transparent huge pages in
// "madvise" mode, the common default): a million-GPU prediction touches about 3.5 GiB of fresh
// memory, and faulting it in 4 KiB at a time (900,000 faults, each a trap, a page allocation and
// its zeroing) was a third to a half of `topo predict`'s CPU time there. Advised, the same memory
// comes in 512 times fewer faults. Where huge pages are off or unknown the advice is a no-op and
// nothing else changes: the values, and so every result, are the same.

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace fb::topo {

// Arrays smaller than this keep the kernel's default: one huge page would hold all of them.
inline constexpr std::size_t huge_page_advice_bytes = std::size_t{4} << 20;

// Asks for huge pages over the pages [data, data + bytes) touches. Call it before the memory is
// first written: pages already faulted in stay as they are. The whole pages at both ends are
// advised too: a block that large is a mapping of its own, and advising only its inside would
// split the mapping, which realloc can then no longer remap (it copies instead).
inline void advise_huge_pages([[maybe_unused]] void* data, [[maybe_unused]] std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < huge_page_advice_bytes) return;
  constexpr std::uintptr_t page = 4096;
  const auto begin = reinterpret_cast<std::uintptr_t>(data) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes + page - 1) & ~(page - 1);
  // A refusal (no THP in this kernel) leaves ordinary pages: only the speed differs.
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

// Room for `count` values in `values`, advised as above when it had to be allocated: for arrays
// reserved at their final size before they are filled.
template <typename T, typename Allocator>
void reserve_huge(std::vector<T, Allocator>& values, std::size_t count) {
  if (count <= values.capacity()) return;
  values.reserve(count);
  advise_huge_pages(values.data(), values.capacity() * sizeof(T));
}

// `count` copies of `value` in `values`, on memory advised as above: for arrays filled once at
// their final size.
template <typename T, typename Allocator>
void assign_huge(std::vector<T, Allocator>& values, std::size_t count, const std::type_identity_t<T>& value) {
  reserve_huge(values, count);
  values.assign(count, value);
}

}  // namespace fb::topo
