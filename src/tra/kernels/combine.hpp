#pragma once
// Element-wise ⊕ of two chunks of the same shape: the aggOp of TRA aggregation.
#include "tra/core/chunk.hpp"
#include "tra/einsum/scalar_program.hpp"

namespace tra::kernels {

// acc := acc ⊕ x, element by element.
void combine_into(einsum::AggOp op, Chunk& acc, const Chunk& x);
// A deep copy.
Chunk clone(const Chunk& c);
// Apply a one-input scalar program to every element.
Chunk map_elements(const einsum::ScalarProgram& f, const Chunk& in);

}  // namespace tra::kernels
