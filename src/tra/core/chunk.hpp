#pragma once
// A chunk: one dense sub-tensor (the "array" of a (key, array) tuple), held in a
// Kokkos View in the execution space's memory, row-major over its shape. Its
// elements are float64 (`data`) or float32 (`data_f32`): one of the two Views
// holds them, as `dtype` says, and the other is empty.
//
// Or a block of a sparse relation (`sparse`, core/sparse_block.hpp): then
// both Views are empty, `shape` is the block's dense shape and only the
// sparse product kernel reads it (kernels/sparse_product.hpp); the dense
// accessors assert.
#include <memory>
#include <vector>

#include "tra/common/dtype.hpp"
#include "tra/common/error.hpp"
#include "tra/common/kokkos_types.hpp"
#include "tra/core/key.hpp"

namespace tra {

struct SparseBlock;

struct Chunk {
  Shape shape;
  ChunkData data;  // a float64 chunk's elements
  ElementData<float> data_f32;  // a float32 chunk's elements
  DType dtype = DType::Float64;
  std::shared_ptr<const SparseBlock> sparse;  // a sparse relation's block, else null
  // A sparse product's result (kernels/einsum_kernel.hpp) is zero outside
  // the rows its block has entries in: those rows, ascending, so that a
  // shuffle the plan counts by them sends only these
  // (comm::shuffle_filled_rows). Set by the kernel that wrote the whole chunk;
  // whatever writes over a chunk in place clears it.
  OrdinalData row_support;
  bool has_row_support = false;
  void forget_row_support() {
    row_support = OrdinalData();
    has_row_support = false;
  }

  Chunk() = default;
  explicit Chunk(const Shape& s, DType t = DType::Float64);  // zero-filled
  // For a chunk that a kernel will overwrite entirely: skips the zero fill.
  static Chunk uninitialized(const Shape& s, DType t = DType::Float64);
  Chunk(const Shape& s, const ChunkData& d);  // adopts d (must have volume(s) elements): float64
  Chunk(const Shape& s, const ElementData<float>& d);  // the same, float32
  Index size() const { return volume(shape); }
  Index rank() const { return static_cast<Index>(shape.size()); }

  // The elements as T (the chunk's own type: asserted).
  template <class T>
  const ElementData<T>& elements() const;

  // Host copies, for I/O, MPI packing and tests, in double: a float32 chunk's
  // elements widen exactly, and values given to one are rounded to the
  // nearest float.
  std::vector<double> to_host() const;
  static Chunk from_host(const Shape& s, const std::vector<double>& values, DType t = DType::Float64);
  static Chunk from_host(const Shape& s, const double* values, DType t = DType::Float64);
  // The chunk of a sparse relation holding `block`.
  static Chunk of_block(std::shared_ptr<const SparseBlock> block);
  bool is_sparse() const { return sparse != nullptr; }
};

// The references to c's elements other than the chunk pool's
// (core/chunk_pool.hpp): 1 when c (or one copy of its View) alone holds them.
long chunk_references(const Chunk& c);

// The elements of *c as T, or an empty View of T where there is no chunk (a
// kernel's optional second operand).
template <class T>
ElementData<T> elements_or_none(const Chunk* c) {
  return c ? c->elements<T>() : ElementData<T>();
}

// f(chunk's elements), with the View of the chunk's own element type.
template <class F>
decltype(auto) with_elements(const Chunk& c, F&& f) {
  TRA_ASSERT(!c.sparse, "a sparse block's chunk read as dense elements");
  if (c.dtype == DType::Float32) return f(c.data_f32);
  return f(c.data);
}

}  // namespace tra
