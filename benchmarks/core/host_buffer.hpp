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
    const std::size_t huge_bytes = huge_page_bytes();
    const bool huge = pages == HostPages::huge && bytes >= huge_page_threshold_bytes();
    const std::size_t alignment = huge ? huge_bytes : base_alignment_bytes;
    const std::size_t allocation = huge ? (bytes + huge_bytes - 1) / huge_bytes * huge_bytes : bytes;
    data_ = {static_cast<T*>(::operator new[](allocation, std::align_val_t{alignment})), AlignedDelete{alignment}};
    // A refusal (a kernel without THP) leaves base pages, which is what the probe in
    // host_pages.cpp reports for the run.
    if (huge) ::madvise(data_.get(), allocation, MADV_HUGEPAGE);
  }

  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return count_; }
  std::span<T> span() { return {data_.get(), count_}; }
  std::span<const T> span() const { return {data_.get(), count_}; }

 private:
  static constexpr std::size_t base_alignment_bytes = 4096;
  struct AlignedDelete {
    std::size_t alignment = base_alignment_bytes;
    void operator()(T* pointer) const { ::operator delete[](pointer, std::align_val_t{alignment}); }
  };
  std::size_t count_;
  std::unique_ptr<T, AlignedDelete> data_;
};

}  // namespace fb
