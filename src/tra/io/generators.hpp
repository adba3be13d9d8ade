#pragma once
// Deterministic tensor generators. An element's value depends only on the seed
// and its position in the whole tensor (a counter-based hash, no sequential
// state), so every rank produces exactly its own chunks and the tensor is the
// same whatever the chunking or the rank count.
#include "tra/core/chunk.hpp"
#include "tra/model/workflow.hpp"

namespace tra::io {

// The model the readers fill (model/workflow.hpp).
using model::Generator;

// The chunk at `key` of a generated tensor of `shape` split into chunks of
// `chunk_shape`, with elements of `dtype`: each value computed in double
// and rounded to dtype once.
Chunk generate_chunk(const Generator& g, const Shape& shape, const Shape& chunk_shape, const Key& key, DType dtype = DType::Float64);

}  // namespace tra::io
