#pragma once
// A TRA plan: the EinSum graph rewritten into TRA operators (EinDecomp §4.3),
// before any decision about sites. Nodes are in execution order; a node's
// inputs precede it.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tra/core/rel_type.hpp"
#include "tra/einsum/statement.hpp"
#include "tra/kernels/einsum_kernel.hpp"
#include "tra/logical/key_expr.hpp"
#include "tra/model/workflow.hpp"

namespace tra::logical {

struct TraNode {
  enum class Kind {
    Input,  // a tensor read from its source, chunked on `type`
    Retile,  // change of chunk grid: Concat ∘ ReKey ∘ Tile, one step
    Join,  // ⋈(keys_left, keys_right, K)
    Transform,  // λ(kernel): one-input EinSum kernel, diag, or scalar map
    Aggregate,  // Σ(group_by, ⊕)
    Filter,  // σ(predicate)
    ReKey,  // ReKey(key map)
    Tile,  // Tile(dim, size)
    Concat  // Concat(key_dim, dim)
  };
  Kind kind = Kind::Input;
  std::vector<int> inputs;
  RelType type;
  std::vector<Key> keys;  // the exact key set (sorted), known without running anything
  std::string tensor;  // the tensor this node produces, if any
  std::string statement;  // the statement it comes from, for EXPLAIN

  // parameters
  std::optional<model::TensorDecl> source;  // Input: the deck's declaration (a copy: plans outlive decks)
  std::vector<int> keys_left, keys_right;  // Join
  std::shared_ptr<const kernels::EinSumKernel> einsum;  // Join, Transform
  enum class ArrayKernel { EinSum, Diag, Scalar } array_kernel = ArrayKernel::EinSum;  // Transform
  einsum::ScalarProgram scalar;  // Transform (Scalar)
  std::vector<int> group_by;  // Aggregate
  einsum::AggOp agg = einsum::AggOp::Sum;  // Aggregate
  std::shared_ptr<const KeyExpr> key_fn;  // Filter, ReKey
  int dim = 0, key_dim = 0;  // Tile, Concat
  Index size = 0;  // Tile
  Shape from_grid;  // Retile: input frontier (target is type.frontier)

  std::string name() const;  // "Join", "Σ", ...
  std::string detail() const;  // parameters in words
};

struct TraPlan {
  std::vector<TraNode> nodes;
  std::string str() const;  // EXPLAIN text
};

}  // namespace tra::logical
