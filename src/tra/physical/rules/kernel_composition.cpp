// R1-1 … R1-7 of the TRA paper (§5.2, Table 2): kernel functions composed
// into fewer operators, and filters pushed towards the inputs.
#include <algorithm>

#include "tra/physical/plan_edit.hpp"
#include "tra/physical/rules/rule.hpp"

namespace tra::physical {
namespace {

using Kind = IaNode::Kind;

bool is(const IaPlan& p, int i, Kind k) { return p.node(i).kind() == k; }
int input(const IaPlan& p, int i, size_t k = 0) { return p.node(i).inputs.at(k); }

// R1-1: σ(b1)(σ(b2)(R)) ≡ σ(b1 ∧ b2)(R).
bool merge_filters(IaPlan& p, int at) {
  if (!is(p, at, Kind::LocalFilter) || !is(p, input(p, at), Kind::LocalFilter)) return false;
  const int inner = input(p, at);
  IaNode& n = p.node(at);
  n.filter().predicate = p.node(inner).filter().predicate.both(n.filter().predicate);
  n.inputs = p.node(inner).inputs;
  return true;
}

// R1-2: λ(k1, a1)(λ(k2, a2)(R)) ≡ λ(k1∘k2, a1∘a2)(R) for one-to-one maps.
bool merge_maps(IaPlan& p, int at) {
  if (!p.node(at).is_map1() || !p.node(input(p, at)).is_map1()) return false;
  const IaNode inner = p.node(input(p, at));
  IaNode& n = p.node(at);
  n.map().key_map = n.map().key_map.after(inner.map().key_map);
  n.map().array_map = n.map().array_map.after(inner.map().array_map);
  n.map().call_flops += inner.map().call_flops;
  n.inputs = inner.inputs;
  return true;
}

// R1-3: λ(idOp, a)(σ(b)(R)) ≡ σ(b)(λ(idOp, a)(R)); applied so that the filter
// runs first and the map sees fewer tuples.
bool filter_before_map(IaPlan& p, int at) {
  if (!is(p, at, Kind::LocalFilter)) return false;
  const int m = input(p, at);
  if (!p.node(m).is_map1() || !p.node(m).map().key_map.identity()) return false;
  IaNode f = p.node(at);
  f.inputs = p.node(m).inputs;
  const int nf = add_node(p, std::move(f));
  IaNode map = p.node(m);
  map.inputs = {nf};
  const int nm = add_node(p, std::move(map));
  redirect(p, at, nm);
  return true;
}

// R1-4: λ(idOp, a)(Σ(g, agg)(R)) ≡ Σ(g, a∘agg)(R).
bool map_into_aggregation(IaPlan& p, int at) {
  const IaNode& m = p.node(at);
  if (!m.is_map1() || !m.map().key_map.identity() || !is(p, input(p, at), Kind::LocalAgg)) return false;
  IaNode a = p.node(input(p, at));
  a.agg().kernel.finish = m.map().array_map.after(a.agg().kernel.finish);
  a.agg().call_flops += m.map().call_flops;
  a.out_type = m.out_type;
  a.agg().decomposable = false;  // the map must run once, on whole groups
  const int na = add_node(p, std::move(a));
  redirect(p, at, na);
  return true;
}

// R1-5: σ(b)(Σ(g, agg)(R)) ≡ Σ(g, agg)(σ(b∘Π_g)(R)): the filter reads only
// the grouping keys, so it can run on the aggregation's input.
bool filter_before_aggregation(IaPlan& p, int at) {
  if (!is(p, at, Kind::LocalFilter) || !is(p, input(p, at), Kind::LocalAgg)) return false;
  const int a = input(p, at);
  const std::vector<int> g = p.node(a).agg().group_by;
  std::vector<std::pair<int, int>> new_to_old;
  for (size_t i = 0; i < g.size(); ++i) new_to_old.emplace_back(g[i], static_cast<int>(i));
  IaNode f = p.node(at);
  f.filter().predicate = f.filter().predicate.relayout(static_cast<int>(g.size()), new_to_old, " on the grouping keys");
  f.inputs = p.node(a).inputs;
  const int nf = add_node(p, std::move(f));
  IaNode agg = p.node(a);
  agg.inputs = {nf};
  const int na = add_node(p, std::move(agg));
  redirect(p, at, na);
  return true;
}

// R1-6: σ(b)(⋈(kl, kr, op)(Rl, Rr)) ≡ ⋈(kl, kr, op)(σ(b)(Rl), σ(b)(Rr)) when
// b reads only joined key dimensions: they hold equal values on both sides.
bool filter_into_join(IaPlan& p, int at) {
  if (!is(p, at, Kind::LocalFilter) || !is(p, input(p, at), Kind::LocalJoin)) return false;
  const int j = input(p, at);
  const IaNode& join = p.node(j);
  if (!join.join().out_key.identity()) return false;
  const KeyPredicate& pred = p.node(at).filter().predicate;
  std::vector<std::pair<int, int>> left, right;  // (input dim, output dim)
  for (int d : pred.dims()) {
    auto it = std::find(join.join().keys_left.begin(), join.join().keys_left.end(), d);
    if (it == join.join().keys_left.end()) return false;
    left.emplace_back(d, d);
    right.emplace_back(join.join().keys_right[static_cast<size_t>(it - join.join().keys_left.begin())], d);
  }
  const int arity = join.out_type.key_arity();
  IaNode fl = p.node(at), fr = p.node(at);
  fl.filter().predicate = pred.relayout(arity, left, "");
  fr.filter().predicate = pred.relayout(arity, right, " on the right's keys");
  fl.inputs = {join.inputs[0]};
  fr.inputs = {join.inputs[1]};
  const int nl = add_node(p, std::move(fl));
  const int nr = add_node(p, std::move(fr));
  IaNode nj = p.node(j);
  nj.inputs = {nl, nr};
  const int n = add_node(p, std::move(nj));
  redirect(p, at, n);
  return true;
}

// R1-7: λ(k, a)(⋈(kl, kr, op)(Rl, Rr)) ≡ ⋈(kl, kr, a∘op)(Rl, Rr) with k applied
// to the joined keys, for one-to-one maps.
bool map_into_join(IaPlan& p, int at) {
  const IaNode& m = p.node(at);
  if (!m.is_map1() || !is(p, input(p, at), Kind::LocalJoin)) return false;
  IaNode j = p.node(input(p, at));
  j.join().kernel.then = m.map().array_map.after(j.join().kernel.then);
  j.join().out_key = m.map().key_map.after(j.join().out_key);
  if (j.join().has_base) j.join().base_out_key = m.map().key_map.after(j.join().base_out_key);
  j.join().call_flops += m.map().call_flops;
  j.join().gemm = j.join().gemm && m.map().array_map.identity();
  j.out_type = m.out_type;
  const int nj = add_node(p, std::move(j));
  redirect(p, at, nj);
  return true;
}

// R1-7, distributive form: when a distributes over op, that is
// a(op(x, y)) = op(a(x), a(y)), λ(k, a)(⋈(kl, kr, op)(Rl, Rr)) ≡
// ⋈(kl, kr, op∘a)(Rl, Rr) with k applied to the joined keys. Here a picks
// elements (diag) and op is elementwise, and a runs as λ(idOp, a) on each
// input: op then runs only on the elements kept (for diag(X+Y), the
// diagonals), and R2-3 can move the maps under a Bcast or Shuffle so that the
// smaller chunks are what moves.
bool distribute_map_into_join(IaPlan& p, int at) {
  const IaNode m = p.node(at);
  if (!m.is_map1() || m.map().array_map.identity() || !m.map().array_map.selects() || !is(p, input(p, at), Kind::LocalJoin)) return false;
  IaNode j = p.node(input(p, at));
  if (!j.join().kernel.zippable()) return false;
  std::vector<int> mapped;
  for (int side : j.inputs) {
    IaNode a;
    a.params = MapParams{};
    a.inputs = {side};
    a.map().array_map = m.map().array_map;
    a.out_type = RelType{p.node(side).type.frontier, m.out_type.chunk_shape, m.out_type.dtype};
    mapped.push_back(add_node(p, std::move(a)));
  }
  const einsum::ScalarProgram& op = j.join().kernel.call.kernel->join_program();
  j.inputs = mapped;
  j.join().kernel.zip = true;
  j.join().call_flops = op.flops_per_eval() * static_cast<double>(volume(m.out_type.chunk_shape));
  j.join().gemm = false;
  j.join().out_key = m.map().key_map.after(j.join().out_key);
  if (j.join().has_base) j.join().base_out_key = m.map().key_map.after(j.join().base_out_key);
  j.out_type = m.out_type;
  const int nj = add_node(p, std::move(j));
  redirect(p, at, nj);
  return true;
}

// R1-7's two forms: the distributive one first, where it holds (the kernel
// then runs on fewer elements), then plain composition.
bool r1_7(IaPlan& p, int at, int variant) { return variant == 0 ? distribute_map_into_join(p, at) : map_into_join(p, at); }

}  // namespace

const std::vector<Rule>& kernel_composition_rules() {
  static const std::vector<Rule> rules = {
      {"R1-1", "merge two filters into one", single(merge_filters), 1, {IaNode::Kind::LocalFilter}},
      {"R1-2", "merge two one-to-one maps into one", single(merge_maps), 1, {IaNode::Kind::LocalMap}},
      {"R1-3", "filter before a map that keeps keys", single(filter_before_map), 1, {IaNode::Kind::LocalFilter}},
      {"R1-4", "compose a map that keeps keys into the aggregation before it", single(map_into_aggregation), 1, {IaNode::Kind::LocalMap}},
      {"R1-5", "filter on grouping keys before the aggregation", single(filter_before_aggregation), 1, {IaNode::Kind::LocalFilter}},
      {"R1-6", "push a filter on joined keys into both inputs of the join", single(filter_into_join), 1, {IaNode::Kind::LocalFilter}},
      {"R1-7", "compose a one-to-one map into the join before it (or distribute it over the join's inputs)", r1_7, 2, {IaNode::Kind::LocalMap}},
  };
  return rules;
}

}  // namespace tra::physical
