#pragma once
// A growable array of trivially copyable values that grows in place: its storage comes from
// malloc and grows with realloc, which moves a large block by remapping its pages (mremap), not by
// copying them. A std::vector that doubles copies its contents at every step and touches a fresh
// block each time: the 39 million path shares of a million-GPU prediction (0.6 GB) were copied
// and page-faulted in about twice over on the way to their final size.

#include "topology/huge_pages.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace fb::topo {

template <typename T>
class PodArray {
  static_assert(std::is_trivially_copyable_v<T>, "PodArray moves its values as bytes");

 public:
  PodArray() = default;
  PodArray(const PodArray&) = delete;
  PodArray& operator=(const PodArray&) = delete;
  PodArray(PodArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  PodArray& operator=(PodArray&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    return *this;
  }
  ~PodArray() { std::free(data_); }  // NOLINT(cppcoreguidelines-no-malloc): realloc's growth in place is the point

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  // Contiguous, with size(): std::span takes it as it took the std::vector it replaces.
  T* data() { return data_; }
  const T* data() const { return data_; }

  void reserve(std::size_t capacity) {
    if (capacity > capacity_) grow_to(capacity);
  }
  void push_back(T value) {  // by value: a value read from this array stays valid when it grows
    if (size_ == capacity_) grow_to(std::max<std::size_t>(16, 2 * capacity_));
    data_[size_++] = value;
  }
  // Appends [first, last), which must not lie inside this array (growing may move it).
  void append(const T* first, const T* last) {
    const auto count = static_cast<std::size_t>(last - first);
    if (size_ + count > capacity_) grow_to(std::max(size_ + count, 2 * capacity_));
    if (count > 0) std::memcpy(data_ + size_, first, count * sizeof(T));
    size_ += count;
  }

 private:
  void grow_to(std::size_t capacity) {
    // NOLINTNEXTLINE(cppcoreguidelines-no-malloc): realloc's growth in place is the point
    void* grown = std::realloc(data_, capacity * sizeof(T));
    if (grown == nullptr) throw std::bad_alloc();
    data_ = static_cast<T*>(grown);
    capacity_ = capacity;
    // The pages not yet written come in huge where the kernel offers them (huge_pages.hpp); a
    // block realloc remaps keeps the advice.
    advise_huge_pages(data_, capacity_ * sizeof(T));
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace fb::topo
