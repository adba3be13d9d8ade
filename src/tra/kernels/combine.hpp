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
// Apply a two-input scalar program to aligned elements of two chunks of the
// same shape: an elementwise ⊗ on chunks of any shape (R1-7's distributive form
// runs it on the smaller chunks a selecting map leaves).
Chunk zip_elements(const einsum::ScalarProgram& f, const Chunk& x, const Chunk& y);
// The same into `out`, which may be x or y (an element-wise join over an
// input no one else holds).
void zip_elements_into(const einsum::ScalarProgram& f, const Chunk& x, const Chunk& y, const Chunk& out);

}  // namespace tra::kernels
