#pragma once
// The plan's chunk and tuple functions (plain data, physical/chunk_fn.hpp and
// key_fn.hpp) bound to the kernels that run them. The executor is the only
// place a plan meets code: the optimizer rewrites and compares the data.
#include <vector>

#include "tra/core/tensor_relation.hpp"
#include "tra/exec/local/tra_ops.hpp"
#include "tra/physical/chunk_fn.hpp"
#include "tra/physical/key_fn.hpp"

namespace tra::exec {

Chunk apply(const physical::ArrayFn& f, const Chunk& c);  // c itself for idOp
// projOp of a join on one chunk of each input.
Chunk apply(const physical::JoinKernel& k, const Chunk& x, const Chunk& y);
// acc += projOp(x, y); only for k.adds_into().
void apply_add(const physical::JoinKernel& k, const Chunk& x, const Chunk& y, Chunk& acc);
// aggOp on one group (members ordered by key), its finishing maps included.
Chunk reduce(const physical::AggKernel& a, const std::vector<const Tuple*>& group);
// The tuples one tuple becomes under a one-to-many map.
std::vector<Tuple> expand(const physical::Expansion& e, const Tuple& t);

// The same as the TRA's operator arguments (exec/local/tra_ops.hpp).
local::JoinFn join_fn(const physical::JoinKernel& k);
// For k.elementwise(): projOp written over the `side` input's chunk (0: the
// left, 1: the right) where nothing else holds that chunk, so that an update
// W - lr·G or relu(Z + b) needs no second buffer. Only for a join whose
// caller drops that input afterwards and pairs each of its chunks once.
local::JoinFn join_fn_over(const physical::JoinKernel& k, int side);
local::AggFn agg_fn(const physical::AggKernel& a);

}  // namespace tra::exec
