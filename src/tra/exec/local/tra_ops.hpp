#pragma once
// The operators of the tensor relational algebra (TRA paper §3.1) over a set of
// (key, chunk) tuples held in one place, as they run: the IA's local
// operators (§4) run exactly these on the tuples of one site, so they serve
// both as the reference semantics in tests and as the executor's local
// steps. (The plans, logical/ and physical/, only name them.)
#include <functional>
#include <vector>

#include "tra/core/tensor_relation.hpp"
#include "tra/einsum/scalar_program.hpp"
#include "tra/logical/key_expr.hpp"

namespace tra::exec::local {

using Tuples = std::vector<Tuple>;
using JoinFn = std::function<Chunk(const Chunk& left, const Chunk& right)>;
// acc := acc ⊕ projOp(left, right), for a projOp that can add in place.
using JoinAddFn = std::function<void(const Chunk& left, const Chunk& right, Chunk& acc)>;
// Reduces one group to a chunk; members are ordered by key.
using AggFn = std::function<Chunk(const std::vector<const Tuple*>& group)>;
using ArrayFn = std::function<Chunk(const Chunk&)>;

// ⋈(joinKeysL, joinKeysR, projOp): pairs tuples whose keys agree on the join
// positions; the output key is the left key followed by the right key without
// its join positions (the natural-join convention of §3.1 (2)).
Tuples join(const Tuples& left, const Tuples& right, const std::vector<int>& keys_left, const std::vector<int>& keys_right, const JoinFn& proj);

// The pairs ⋈ makes, without computing their chunks: the left and right
// tuple and the output key of each, in the order ⋈ returns them (by key).
struct JoinMatch {
  const Tuple* left;
  const Tuple* right;
  Key key;
};
std::vector<JoinMatch> join_matches(const Tuples& left, const Tuples& right, const std::vector<int>& keys_left, const std::vector<int>& keys_right);

// Σ(groupByKeys, aggOp): groups on the given key positions (output key in that
// order) and reduces every group.
Tuples aggregate(const Tuples& in, const std::vector<int>& group_by, const AggFn& agg);

// An AggFn that folds the group element-wise with ⊕.
AggFn elementwise(einsum::AggOp op);

Tuples rekey(const Tuples& in, const logical::KeyExpr& key_fn);
Tuples filter(const Tuples& in, const logical::KeyExpr& predicate);
Tuples transform(const Tuples& in, const ArrayFn& fn);

// Tile(tileDim, tileSize): splits every array along tileDim into pieces of
// tileSize and appends the piece number as a new, last key dimension.
Tuples tile(const Tuples& in, int tile_dim, Index tile_size);
// Concat(keyDim, arrayDim): groups on every key dimension but keyDim and
// concatenates each group's arrays along arrayDim, ordered by keyDim.
Tuples concat(const Tuples& in, int key_dim, int array_dim);

}  // namespace tra::exec::local
