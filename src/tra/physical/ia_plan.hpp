#pragma once
// The implementation algebra (TRA paper §4): physical tensor relations carry a
// site, and the plan says how tuples move (Bcast, Shuffle) and what each site
// computes on its own tuples (local join, aggregation, filter, map).
//
// A node holds two kinds of fields. Its parameters say what the operator does
// and are what the optimizer's rules rewrite: one type per kind of operator
// (ScanParams ... MapParams in ops/<kind>.hpp, a std::variant listed in
// ops/kinds.hpp; the kind is which one it holds),
// all plain data (key and chunk functions as steps, key_fn.hpp and
// chunk_fn.hpp), so that a plan can be printed exactly, compared (==) and
// kept, and only the executor binds them to the code that runs them. Its
// derived fields, shared by every kind (type,
// distribution, costs) are inferred bottom-up from the parameters by
// physical::infer (infer.hpp), so that any rewritten plan can be costed again:
// placement is deterministic, which makes the distribution of every relation,
// and with it the floats every Bcast and Shuffle moves, exact (§5.3).
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tra/core/placement.hpp"
#include "tra/core/rel_type.hpp"
#include "tra/core/tensor_relation.hpp"
#include "tra/model/workflow.hpp"
#include "tra/physical/chunk_fn.hpp"
#include "tra/physical/key_fn.hpp"
#include "tra/physical/ops/kinds.hpp"

namespace tra::physical {

// (key, site) pairs, shared between copies of a plan or a node and copied on
// the first write: the optimizer keeps copies of the nodes a candidate rewrite
// infers again (to take the candidate back), and the pairs are most of a
// plan's memory (one allocation per key).
class SitedKeys {
 public:
  using value_type = std::pair<Key, int>;
  std::vector<value_type>::const_iterator begin() const { return items().begin(); }
  std::vector<value_type>::const_iterator end() const { return items().end(); }
  size_t size() const { return items().size(); }
  bool empty() const { return items().empty(); }
  const value_type& operator[](size_t i) const { return items()[i]; }
  void emplace_back(Key k, int site) { writable().emplace_back(std::move(k), site); }
  void reserve(size_t n) { writable().reserve(n); }  // inference knows most counts: no regrowing
  bool operator==(const SitedKeys& o) const { return shared_ == o.shared_ || items() == o.items(); }  // same pairs, same order

 private:
  const std::vector<value_type>& items() const {
    static const std::vector<value_type> none;
    return shared_ ? *shared_ : none;
  }
  std::vector<value_type>& writable() {
    if (!shared_) shared_ = std::make_shared<std::vector<value_type>>();
    else if (shared_.use_count() > 1) shared_ = std::make_shared<std::vector<value_type>>(*shared_);
    return *shared_;
  }
  std::shared_ptr<std::vector<value_type>> shared_;
};

// Where each tuple of a physical relation is: (key, site) pairs, or every key
// on every site (then the sites read -1).
struct Distribution {
  bool everywhere = false;
  SitedKeys at;  // a key repeats on several sites after a partial aggregation
  // A sparse product's result (ops/join.cpp): the rows of each tuple's
  // chunk, in the order of `at`, outside of which it is zero (its block's
  // filled rows), which a Shuffle sends alone; null: every row.
  std::shared_ptr<const std::vector<Index>> filled_rows;
  Index tuples() const { return static_cast<Index>(at.size()); }
  bool operator==(const Distribution& o) const {
    return everywhere == o.everywhere && at == o.at &&
           (filled_rows == o.filled_rows || (filled_rows && o.filled_rows && *filled_rows == *o.filled_rows));
  }
};

struct IaNode {
  using Kind = IaKind;
  IaParams params;  // what the operator does: one type per kind
  std::vector<int> inputs;
  int tra_node = -1;  // the TRA node it implements (-1: added by a rule)

  Kind kind() const { return static_cast<Kind>(params.index()); }
  ScanParams& scan() { return std::get<ScanParams>(params); }
  const ScanParams& scan() const { return std::get<ScanParams>(params); }
  ShuffleParams& shuffle() { return std::get<ShuffleParams>(params); }
  const ShuffleParams& shuffle() const { return std::get<ShuffleParams>(params); }
  JoinParams& join() { return std::get<JoinParams>(params); }
  const JoinParams& join() const { return std::get<JoinParams>(params); }
  AggParams& agg() { return std::get<AggParams>(params); }
  const AggParams& agg() const { return std::get<AggParams>(params); }
  FilterParams& filter() { return std::get<FilterParams>(params); }
  const FilterParams& filter() const { return std::get<FilterParams>(params); }
  MapParams& map() { return std::get<MapParams>(params); }
  const MapParams& map() const { return std::get<MapParams>(params); }
  const CarryParams& carry() const { return std::get<CarryParams>(params); }
  // Scan and Shuffle: where the tuples go, and the extents numbering the sites.
  Placement& placement() { return kind() == Kind::Scan ? scan().placement : shuffle().placement; }
  const Placement& placement() const { return kind() == Kind::Scan ? scan().placement : shuffle().placement; }
  Shape& site_grid() { return kind() == Kind::Scan ? scan().site_grid : shuffle().site_grid; }
  const Shape& site_grid() const { return kind() == Kind::Scan ? scan().site_grid : shuffle().site_grid; }
  double call_flops() const;  // Join, Agg, Map: kernel work per call (per group for Agg); 0 otherwise

  RelType out_type;  // LocalJoin, LocalAgg, LocalMap: chunk shape and key arity of the output

  // ---- derived by infer()
  bool stale = true;  // the derived fields below must be recomputed (parameters or inputs changed)
  RelType type;  // frontier inferred from the exact key set (§5.3, brute force)
  Distribution dist;
  bool scattered = false;  // a key sits on several sites (partial aggregates)
  std::string invalid;  // why this node would compute a wrong result, if it would
  Index predicted_floats = 0;  // floats it sends between sites, exactly
  double paper_cost = 0;  // §5.3: broadcast f·s, shuffle f
  double flops = 0;  // kernel work, all sites
  double site_flops = 0;  // kernel work of the busiest site
  double site_fold_flops = 0;  // LocalAgg: the part of site_flops that folds members (the rest is a composed map)
  Index site_floats_in =
      0;  // Scan: floats the busiest site reads; Bcast/Shuffle: the busiest site sends or receives; LocalJoin: its kernel calls read and write
  // Kernel calls of the busiest site, one per chunk each makes (a Scan's
  // chunk reads or generations, a LocalJoin's pairs, a LocalMap's tuples, a
  // LocalAgg's members, kept or folded): each costs Rates::call_seconds beside its work.
  Index site_calls = 0;

  // The same operator on the same inputs: every parameter equal (the
  // derived fields follow from them, and so do its words).
  bool same_operator(const IaNode& o) const;
  std::string parameters() const;  // every parameter, on one line
  std::string words() const;  // what it does in words (EXPLAIN, reports): derived from its parameters

  Role role() const;
  bool moves() const { return role() == Role::Move; }
  bool is_map1() const { return kind() == Kind::LocalMap && !map().expand; }  // one tuple to one
  bool is_replica() const { return kind() == Kind::LocalMap && map().replica; }  // a join strategy's replication
  std::string name() const;
  // Where its tuples are: a Scan's or Shuffle's placement, else All,
  // Scattered, one site each, or (a regridding Carry) copies where read
  // (EXPLAIN text, --explain=dot).
  std::string where() const;
};

struct IaPlan {
  std::vector<IaNode> nodes;  // inputs precede their consumers
  int nsites = 1;
  std::vector<int> tra_to_ia;  // the IA node that yields each TRA node's relation (-1 once rewritten away)
  std::vector<int> roots;  // nodes whose results are wanted; the rest is dead unless they feed one

  Index predicted_floats() const;
  double flops() const;
  std::string str() const;  // EXPLAIN text
  // The same plan: node for node the same operators, the same roots and
  // results, on as many sites. Two plans that compare equal run the same.
  bool operator==(const IaPlan& o) const;
  bool operator!=(const IaPlan& o) const { return !(*this == o); }
  // Every node's parameters, one line each: equal plans print alike, and a
  // plan that differs in any parameter prints differently (kept with
  // results, compared across runs).
  std::string parameters() const;
  const IaNode& node(int i) const { return nodes[static_cast<size_t>(i)]; }
  IaNode& node(int i) { return nodes[static_cast<size_t>(i)]; }
};

// For each node, the LocalAgg it streams into, or -1: a LocalJoin whose one
// consumer is a LocalAgg that folds element-wise, and whose own result is not
// wanted, never materializes its tuples; each is folded into its group as it
// is made (exec/join_aggregate.hpp).
std::vector<int> streamed_into(const IaPlan& plan);
// The same counting only the consumers among `live` (the nodes a plan's roots
// need, when it still holds dead ones).
std::vector<int> streamed_into(const IaPlan& plan, const std::vector<int>& live);
// The join at j streams into a sum and adds its products in place: the fold
// costs no pass of its own.
bool folds_in_gemm(const IaPlan& plan, int j, int agg);

}  // namespace tra::physical
