#pragma once
// One array of the RowStore: contiguous and sized like std::vector, but growing it leaves the new
// entries to their writer instead of zeroing them. Each step's contact rows are written whole right
// after they are appended, so the zeroing was pure cost (about 2% of a pyramid's step), and on two
// threads it left the main core owning the cache lines that the pool's threads then write.
// Shrinking keeps the capacity, so a warmed-up store grows without allocating.

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>

namespace impulse {

template <class T>
class RowColumn {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "a row column holds plain values: growing it copies bytes and constructs nothing");

 public:
  RowColumn() = default;
  RowColumn(const RowColumn& other) { copy_from(other); }
  RowColumn(RowColumn&& other) noexcept { swap(other); }
  RowColumn& operator=(const RowColumn& other) {
    if (this != &other) copy_from(other);
    return *this;
  }
  RowColumn& operator=(RowColumn&& other) noexcept {
    swap(other);
    return *this;
  }
  ~RowColumn() { release(); }

  std::size_t size() const { return size_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }

  /// n entries; entries past the old size are unwritten (their writer fills them).
  void resize(std::size_t n) {
    if (n > capacity_) reallocate(std::max(n, 2 * capacity_));
    size_ = n;
  }

 private:
  void copy_from(const RowColumn& other) {
    resize(other.size());
    std::copy(other.begin(), other.end(), begin());
  }
  [[gnu::noinline]] void reallocate(std::size_t capacity) {  // rare: kept out of resize's path
    T* grown = std::allocator<T>().allocate(capacity);
    std::copy(begin(), end(), grown);
    release();
    data_ = grown;
    capacity_ = capacity;
  }
  void release() {
    if (data_ != nullptr) std::allocator<T>().deallocate(data_, capacity_);
    data_ = nullptr;
    capacity_ = 0;
  }
  void swap(RowColumn& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
  }

  T* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace impulse
