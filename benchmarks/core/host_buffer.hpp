#pragma once
// A page-aligned host buffer of T. Pages are touched only when the pattern is written, by the rank
// that uses them, so memory lands on that rank's NUMA node.

#include <cstddef>
#include <memory>
#include <new>
#include <span>

namespace fb {

template <class T>
class HostBuffer {
 public:
  static constexpr std::size_t alignment_bytes = 4096;

  explicit HostBuffer(std::size_t count)
      : count_(count),
        data_(count == 0 ? nullptr
                         : static_cast<T*>(::operator new[](count * sizeof(T), std::align_val_t{alignment_bytes}))) {}

  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return count_; }
  std::span<T> span() { return {data_.get(), count_}; }
  std::span<const T> span() const { return {data_.get(), count_}; }

 private:
  struct AlignedDelete {
    void operator()(T* pointer) const { ::operator delete[](pointer, std::align_val_t{alignment_bytes}); }
  };
  std::size_t count_;
  std::unique_ptr<T, AlignedDelete> data_;
};

}  // namespace fb
