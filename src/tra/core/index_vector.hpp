#pragma once
// A short vector of integers held inline: the type of keys and shapes.
//
// Keys have a few entries (one per key dimension), and the optimizer copies
// them by the hundred thousand: every inferred distribution holds a copy of
// each key (physical/infer.cpp). As std::vector every copy was an allocation,
// and allocation was half of planning time. Up to kInline entries live inside
// the object; a longer vector moves to the heap, so no length is refused.
// The interface is the part of std::vector's that keys and shapes use, and it
// converts to and from std::vector<Index> where an API wants one.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <type_traits>
#include <vector>

namespace tra {

using Index = std::int64_t;

class IndexVector {
 public:
  using value_type = Index;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = Index&;
  using const_reference = const Index&;
  using pointer = Index*;
  using const_pointer = const Index*;
  using iterator = Index*;
  using const_iterator = const Index*;
  static constexpr size_type kInline = 6;

  IndexVector() = default;
  explicit IndexVector(size_type n) { resize(n); }
  IndexVector(size_type n, Index v) { resize(n, v); }
  IndexVector(std::initializer_list<Index> l) { assign(l.begin(), l.end()); }
  template <class It, class = std::enable_if_t<!std::is_integral_v<It>>>
  IndexVector(It first, It last) {
    assign(first, last);
  }
  IndexVector(const std::vector<Index>& v) { assign(v.begin(), v.end()); }  // NOLINT: converts, like a vector
  operator std::vector<Index>() const { return std::vector<Index>(begin(), end()); }  // NOLINT

  IndexVector(const IndexVector& o) { assign(o.begin(), o.end()); }
  IndexVector(IndexVector&& o) noexcept : heap_(std::move(o.heap_)), size_(o.size_) {
    std::copy(o.inline_, o.inline_ + (size_ <= kInline ? size_ : 0), inline_);
    o.size_ = 0;
    o.heap_.clear();
  }
  IndexVector& operator=(const IndexVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  IndexVector& operator=(IndexVector&& o) noexcept {
    if (this != &o) {
      heap_ = std::move(o.heap_);
      size_ = o.size_;
      std::copy(o.inline_, o.inline_ + (size_ <= kInline ? size_ : 0), inline_);
      o.size_ = 0;
      o.heap_.clear();
    }
    return *this;
  }
  IndexVector& operator=(std::initializer_list<Index> l) {
    assign(l.begin(), l.end());
    return *this;
  }

  template <class It>
  void assign(It first, It last) {
    const auto n = static_cast<size_type>(std::distance(first, last));
    if (n <= kInline) {
      heap_.clear();
      std::copy(first, last, inline_);
    } else {
      heap_.assign(first, last);
    }
    size_ = n;
  }

  size_type size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Index* data() { return size_ <= kInline ? inline_ : heap_.data(); }
  const Index* data() const { return size_ <= kInline ? inline_ : heap_.data(); }
  iterator begin() { return data(); }
  iterator end() { return data() + size_; }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return data() + size_; }
  std::reverse_iterator<iterator> rbegin() { return std::reverse_iterator<iterator>(end()); }
  std::reverse_iterator<iterator> rend() { return std::reverse_iterator<iterator>(begin()); }
  std::reverse_iterator<const_iterator> rbegin() const { return std::reverse_iterator<const_iterator>(end()); }
  std::reverse_iterator<const_iterator> rend() const { return std::reverse_iterator<const_iterator>(begin()); }
  Index& operator[](size_type i) { return data()[i]; }
  const Index& operator[](size_type i) const { return data()[i]; }
  Index& at(size_type i) {
    if (i >= size_) throw_range(i);
    return data()[i];
  }
  const Index& at(size_type i) const {
    if (i >= size_) throw_range(i);
    return data()[i];
  }
  Index& front() { return data()[0]; }
  const Index& front() const { return data()[0]; }
  Index& back() { return data()[size_ - 1]; }
  const Index& back() const { return data()[size_ - 1]; }

  void reserve(size_type) {}  // inline storage needs none; the heap grows as a vector does
  void clear() {
    heap_.clear();
    size_ = 0;
  }
  void push_back(Index v) {
    if (size_ < kInline) {
      inline_[size_++] = v;
      return;
    }
    if (size_ == kInline) heap_.assign(inline_, inline_ + kInline);
    heap_.push_back(v);
    ++size_;
  }
  void emplace_back(Index v) { push_back(v); }
  void pop_back() { resize(size_ - 1); }
  void resize(size_type n, Index v = 0) {
    if (n <= kInline) {
      if (size_ > kInline) std::copy(heap_.begin(), heap_.begin() + static_cast<difference_type>(n), inline_);
      else std::fill(inline_ + std::min(size_, n), inline_ + n, v);
      heap_.clear();
    } else {
      if (size_ <= kInline) heap_.assign(inline_, inline_ + size_);
      heap_.resize(n, v);
    }
    size_ = n;
  }
  // The rarer edits go through a vector.
  iterator insert(const_iterator pos, Index v) { return insert(pos, &v, &v + 1); }
  template <class It>
  iterator insert(const_iterator pos, It first, It last) {
    const auto at = pos - begin();
    std::vector<Index> v(begin(), end());
    v.insert(v.begin() + at, first, last);
    assign(v.begin(), v.end());
    return begin() + at;
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    const auto at = first - begin();
    std::vector<Index> v(begin(), end());
    v.erase(v.begin() + at, v.begin() + (last - begin()));
    assign(v.begin(), v.end());
    return begin() + at;
  }

  friend bool operator==(const IndexVector& a, const IndexVector& b) { return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin()); }
  friend bool operator!=(const IndexVector& a, const IndexVector& b) { return !(a == b); }
  friend bool operator<(const IndexVector& a, const IndexVector& b) { return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end()); }
  friend bool operator>(const IndexVector& a, const IndexVector& b) { return b < a; }
  friend bool operator<=(const IndexVector& a, const IndexVector& b) { return !(b < a); }
  friend bool operator>=(const IndexVector& a, const IndexVector& b) { return !(a < b); }

 private:
  [[noreturn]] static void throw_range(size_type i);  // key.cpp

  Index inline_[kInline] = {};
  std::vector<Index> heap_;  // the entries when there are more than kInline
  size_type size_ = 0;
};

}  // namespace tra
