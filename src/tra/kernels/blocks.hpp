#pragma once
// Moving rectangular blocks between chunks: the array side of Tile, Concat and
// of re-chunking a relation to another partitioning (TRA paper §3.1 (6), (7)).
#include <vector>

#include "tra/core/chunk.hpp"

namespace tra::kernels {

// The block of `src` starting at `offset` with shape `shape`.
Chunk extract_block(const Chunk& src, const Shape& offset, const Shape& shape);
// Write `block` into `dst` at `offset`.
void insert_block(Chunk& dst, const Chunk& block, const Shape& offset);
// Permute the dimensions: out.shape[i] = in.shape[perm[i]].
Chunk permute(const Chunk& in, const std::vector<int>& perm);
// The diagonal of a square matrix chunk, as a vector chunk.
Chunk diagonal(const Chunk& in);

}  // namespace tra::kernels
