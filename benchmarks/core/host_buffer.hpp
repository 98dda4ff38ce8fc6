#pragma once
// A page-aligned host buffer of T. Pages are touched only when the pattern is written, by the rank
// that uses them, so memory lands on that rank's NUMA node.
//
// With HostPages::huge a buffer of at least huge_page_threshold_bytes() is rounded up to whole
// huge pages and asked for transparent huge pages (madvise), whatever the host's THP policy
// (`always` or `madvise`). On 4 KiB pages a 4 MiB MPI transfer between two processes of one host
// read 10.3 to 11.6 GB/s over eight runs on an idle machine, on huge pages 14.15 to 14.23
// (docs/performance.md): the pages a run happens to get, not the transport, set the spread.

#include "benchmarks/core/host_pages.hpp"

#include <sys/mman.h>

#include <cstddef>
#include <memory>
#include <new>
#include <span>

namespace fb {

template <class T>
class HostBuffer {
 public:
  explicit HostBuffer(std::size_t count, HostPages pages = HostPages::base) : count_(count) {
    if (count == 0) return;
    const std::size_t bytes = count * sizeof(T);
    if (pages == HostPages::huge && bytes >= huge_page_threshold_bytes()) {
      data_ = {static_cast<T*>(map_huge_pages(bytes)), Release{round_up_to_huge_pages(bytes)}};
      return;
    }
    data_ = {static_cast<T*>(::operator new[](bytes, std::align_val_t{base_alignment_bytes})), Release{}};
  }

  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return count_; }
  std::span<T> span() { return {data_.get(), count_}; }
  std::span<const T> span() const { return {data_.get(), count_}; }

 private:
  static constexpr std::size_t base_alignment_bytes = 4096;
  // Huge-page buffers are mappings of their own, not heap memory: an allocator may keep huge
  // pages off its heap (AddressSanitizer's does), and a mapping goes back to the kernel whole.
  struct Release {
    std::size_t mapped_bytes = 0;  // 0: from operator new
    void operator()(T* pointer) const {
      if (mapped_bytes > 0)
        ::munmap(pointer, mapped_bytes);
      else
        ::operator delete[](pointer, std::align_val_t{base_alignment_bytes});
    }
  };
  std::size_t count_;
  std::unique_ptr<T, Release> data_;
};

}  // namespace fb
