#pragma once
// The implementation algebra (TRA paper §4): physical tensor relations carry a
// site, and the plan says how tuples move (Bcast, Shuffle) and what each site
// computes on its own tuples (local join, aggregation, filter, map).
//
// Every node also records the exact distribution of its tuples over the sites,
// derived key by key from its inputs (placement is deterministic). From it the
// floats each Bcast and Shuffle moves are predicted exactly; the executor
// measures the same quantity and the run report puts both side by side.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tra/core/placement.hpp"
#include "tra/core/rel_type.hpp"
#include "tra/core/tensor_relation.hpp"
#include "tra/logical/tra_ops.hpp"

namespace tra::io {
struct TensorDecl;
}

namespace tra::physical {

// Where each tuple of a physical relation is: (key, site) pairs, or every key
// on every site.
struct Distribution {
  bool everywhere = false;
  std::vector<std::pair<Key, int>> at;  // when !everywhere; a key may repeat on several sites
  Index tuples() const { return static_cast<Index>(at.size()); }
};

using MapFn = std::function<std::vector<Tuple>(const Tuple&)>;

struct IaNode {
  enum class Kind { Scan, Bcast, Shuffle, LocalJoin, LocalAgg, LocalFilter, LocalMap };
  Kind kind = Kind::Scan;
  std::vector<int> inputs;
  int tra_node = -1;        // the TRA node it implements
  RelType type;
  Placement placement;      // Part / All / Explicit; Scattered partial aggregates are Explicit-less: see `scattered`
  bool scattered = false;   // a key may sit on several sites (after a partial aggregation)
  Distribution dist;

  // parameters
  const io::TensorDecl* source = nullptr;   // Scan
  std::vector<int> keys_left, keys_right;   // LocalJoin
  logical::JoinFn join;                     // LocalJoin
  std::vector<int> group_by;                // LocalAgg
  logical::AggFn agg;                       // LocalAgg
  std::shared_ptr<const logical::KeyExpr> predicate;  // LocalFilter
  MapFn map;                                // LocalMap
  int arity = 1;                            // LocalMap: tuples out per tuple in
  std::string detail;                       // kernel and parameters in words

  // costs
  Index predicted_floats = 0;  // floats this node sends between sites, exactly
  double paper_cost = 0;       // §5.3: broadcast f·s, shuffle f
  double flops = 0;            // floating-point work of its kernels, all sites

  std::string name() const;
};

struct IaPlan {
  std::vector<IaNode> nodes;
  int nsites = 1;
  std::vector<int> tra_to_ia;  // the IA node that yields each TRA node's relation
  Index predicted_floats() const;
  double flops() const;
  std::string str() const;  // EXPLAIN text
};

}  // namespace tra::physical
