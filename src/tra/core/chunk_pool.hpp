#pragma once
// Chunk memory kept for reuse on a device. On a GPU every new buffer is a
// cudaMalloc and every freed one a cudaFree, which waits for the device to
// finish all it was given: a training step allocates and frees a result per
// operator, so the host could never queue work ahead, and small operators
// cost a tenth of a millisecond each (measured on an H200). The pool keeps
// every buffer it made; one whose chunks are all gone is idle, and the next
// chunk of its size takes it. A training loop, whose iterations allocate the
// same sizes in the same order, then allocates nothing after its first.
//
// Reuse is safe without a fence: kernels run in order on the execution
// space's one stream, so a kernel writing a reused buffer starts after every
// kernel that read it under its old chunk; host copies into device memory
// (Kokkos::deep_copy) fence.
//
// The pool holds one reference to each buffer (a buffer is idle when that is
// its only one), so "held by this chunk alone", which decides whether an
// operator may overwrite a chunk in place, is chunk_references() == 1, not
// use_count() == 1.
//
// Footprint: idle buffers are freed when a new one must be made while more
// bytes are idle than in use (the pool then stays within twice what is in
// use), and all of them when an allocation fails. On a host build there is
// no pool (glibc keeps freed memory for reuse there: common/allocation.hpp)
// unless TRA_CHUNK_POOL=1, which the tests set to run this path on a CPU.
#include <cstddef>
#include <map>
#include <mutex>
#include <vector>

#include "tra/common/kokkos_types.hpp"

namespace tra {

class ChunkPool {
 public:
  // `n` elements of type T (double or float), contents undefined: an idle
  // buffer of that type and size, or a new one.
  template <class T>
  ElementData<T> take(size_t n);
  // Whether the pool holds a reference to d's memory.
  template <class T>
  bool holds(const ElementData<T>& d) const;
  size_t buffers() const;  // every buffer the pool holds, idle or not
  // Frees every idle buffer (all of them before Kokkos is finalized).
  void release_idle();

 private:
  // The buffers of one element type, by their number of elements.
  template <class T>
  using Shelf = std::map<size_t, std::vector<ElementData<T>>>;
  template <class T>
  Shelf<T>& shelf();
  template <class T>
  const Shelf<T>& shelf() const;
  size_t bytes(bool idle) const;  // of the idle buffers, or of those in use
  void drop_idle();

  mutable std::mutex mutex_;
  Shelf<double> doubles_;
  Shelf<float> floats_;
};

// The process's pool on a device build (or with TRA_CHUNK_POOL=1); else null.
ChunkPool* chunk_pool();

// The references to d's memory other than the pool's: 1 when one chunk (or
// one copy of its View) alone holds it.
template <class T>
long chunk_references(const ElementData<T>& d);

}  // namespace tra
