#pragma once
// A chunk: one dense sub-tensor (the "array" of a (key, array) tuple), held in a
// Kokkos View in the execution space's memory, row-major over its shape.
#include <vector>

#include "tra/common/kokkos_types.hpp"
#include "tra/core/key.hpp"

namespace tra {

struct Chunk {
  Shape shape;
  ChunkData data;

  Chunk() = default;
  explicit Chunk(const Shape& s);  // zero-filled
  // For a chunk that a kernel will overwrite entirely: skips the zero fill.
  static Chunk uninitialized(const Shape& s);
  Chunk(const Shape& s, const ChunkData& d);  // adopts d (must have volume(s) elements)
  Index size() const { return volume(shape); }
  Index rank() const { return static_cast<Index>(shape.size()); }

  // Host copies, for I/O, MPI packing and tests.
  std::vector<Scalar> to_host() const;
  static Chunk from_host(const Shape& s, const std::vector<Scalar>& values);
  static Chunk from_host(const Shape& s, const Scalar* values);
};

}  // namespace tra
