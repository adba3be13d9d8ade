// R2-1 … R2-7 of the TRA paper (§5.2, Table 2): fewer and cheaper broadcasts
// and shuffles. Preconditions on placement are checked exactly on the
// inferred distributions (placement is deterministic).
#include <algorithm>
#include <numeric>

#include "tra/physical/infer.hpp"
#include "tra/physical/plan_edit.hpp"
#include "tra/physical/rules/rule.hpp"

namespace tra::physical {
namespace {

using Kind = IaNode::Kind;

int input(const IaPlan& p, int i, size_t k = 0) { return p.node(i).inputs.at(k); }

// The relation under any Bcast or Shuffle steps.
int unmoved(const IaPlan& p, int i) {
  while (p.node(i).moves()) i = input(p, i);
  return i;
}

// R2-1: Bcast(Bcast(R)) ≡ Bcast(R); Shuf(d2)(Shuf(d1)(R)) ≡ Shuf(d2)(R).
bool last_movement_only(IaPlan& p, int at) {
  const IaNode& n = p.node(at);
  if (!n.moves() || p.node(input(p, at)).kind() != n.kind()) return false;
  p.node(at).inputs = p.node(input(p, at)).inputs;
  return true;
}

// R2-2: Bcast(σ(R)) ≡ σ(Bcast(R)), and the same for Shuf; applied so that the
// filter runs before the data moves.
bool filter_before_movement(IaPlan& p, int at) {
  if (p.node(at).kind() != Kind::LocalFilter || !p.node(input(p, at)).moves()) return false;
  const int mv = input(p, at);
  IaNode f = p.node(at);
  f.inputs = p.node(mv).inputs;
  const int nf = add_node(p, std::move(f));
  IaNode m = p.node(mv);
  m.inputs = {nf};
  const int nm = add_node(p, std::move(m));
  redirect(p, at, nm);
  return true;
}

// R2-3: Bcast(λ(R)) ≡ λ(Bcast(R)), and Shuf(λ(R)) ≡ λ(Shuf(R)) when the map keeps
// keys. Both directions: a map that shrinks chunks (diag) should run before the
// data moves, one that grows them after; the cost model decides.
bool swap_map_and_movement(IaPlan& p, int at) {
  const IaNode& n = p.node(at);
  int upper = -1, lower = -1;
  if (n.moves() && p.node(input(p, at)).is_map1()) {
    upper = at;  // movement over map → map over movement
    lower = input(p, at);
  } else if (n.is_map1() && p.node(input(p, at)).moves()) {
    upper = at;  // map over movement → movement over map
    lower = input(p, at);
  } else {
    return false;
  }
  const IaNode& mv = p.node(upper).moves() ? p.node(upper) : p.node(lower);
  const IaNode& map = p.node(upper).moves() ? p.node(lower) : p.node(upper);
  if (mv.kind() == Kind::Shuffle && !map.map().key_map.identity()) return false;
  IaNode a = p.node(lower), b = p.node(upper);
  b.inputs = p.node(lower).inputs;
  const int nb = add_node(p, std::move(b));
  a.inputs = {nb};
  const int na = add_node(p, std::move(a));
  redirect(p, at, na);
  return true;
}

// R2-4: Σ(g)(Shuf(d)(R)) ≡ Σ(g)(R) when every group of R already sits on one site.
bool aggregate_in_place(IaPlan& p, int at) {
  if (p.node(at).kind() != Kind::LocalAgg || p.node(input(p, at)).kind() != Kind::Shuffle) return false;
  const IaNode& r = p.node(input(p, input(p, at)));
  if (!grouped_on_one_site(r.dist, p.node(at).agg().group_by)) return false;
  p.node(at).inputs = {input(p, input(p, at))};
  return true;
}

// R2-5: Σ(g)(Shuf(d)(R)) ≡ Σ(g)(Shuf(d)(Σ(g)(R))): aggregate on every site
// first, so that only one partial result per group and site moves.
//
// An aggregation R1-4 composed a map into (agg = finish ∘ fold) splits too:
// the first phase only folds, the second folds the partial results and then
// runs the map once per group, as before. (Without this, a map composed
// early would close off every placement that splits groups.)
bool two_phase_aggregation(IaPlan& p, int at) {
  const IaNode& a = p.node(at);
  if (a.kind() != Kind::LocalAgg || p.node(input(p, at)).kind() != Kind::Shuffle) return false;
  const bool composed = !a.agg().decomposable;
  if (composed && (a.agg().kernel.fold() == einsum::AggOp::None || a.agg().kernel.finish.identity())) return false;
  const int r = input(p, input(p, at));
  const IaNode& rn = p.node(r);
  if (rn.kind() == Kind::LocalAgg && rn.agg().decomposable && rn.scattered) return false;  // already split
  if (grouped_on_one_site(rn.dist, a.agg().group_by)) return false;  // R2-4's case
  // The partial results go to the sites the shuffle would have sent their
  // groups to: the same dimensions, numbered on the same grid.
  const IaNode& sh = p.node(input(p, at));
  std::vector<int> dims;
  Shape grid(a.agg().group_by.size(), 1);
  for (int d : sh.placement().dims) {
    auto it = std::find(a.agg().group_by.begin(), a.agg().group_by.end(), d);
    if (it == a.agg().group_by.end()) return false;  // it partitions on a dimension the groups do not keep
    dims.push_back(static_cast<int>(it - a.agg().group_by.begin()));
    grid[static_cast<size_t>(dims.back())] = sh.site_grid().at(static_cast<size_t>(d));
  }
  Placement same_sites = sh.placement();  // the same grid (dims kept in the shuffle's order), renumbered
  same_sites.dims = dims;
  IaNode partial = a;  // a copy: `a` dangles once nodes are added
  partial.inputs = {r};
  partial.agg().phase = AggParams::Phase::Partial;
  if (composed) {  // the fold alone; its results keep the members' chunk shape
    partial.agg().kernel = AggKernel{AggKernel::Fold{a.agg().kernel.fold()}, {}};
    partial.agg().call_flops = 0;
    partial.agg().decomposable = true;
    partial.out_type.chunk_shape = rn.type.chunk_shape;
  }
  std::vector<int> all(a.agg().group_by.size());
  const int np = add_node(p, std::move(partial));
  std::iota(all.begin(), all.end(), 0);
  const int ns = add_node(p, make_shuffle(np, dims, grid));
  p.node(ns).placement() = std::move(same_sites);
  IaNode final_agg = p.node(at);
  final_agg.inputs = {ns};
  final_agg.agg().group_by = all;
  final_agg.agg().phase = AggParams::Phase::Final;
  const int nf = add_node(p, std::move(final_agg));
  redirect(p, at, nf);
  return true;
}

// R2-5 read right to left: Σ(g)(Shuf(d')(Σ(g)(R))) ≡ Σ(g)(Shuf(d)(R)), and
// Σ(g)(Σ(g)(R)) ≡ Σ(g)(R) once R2-4 dropped the shuffle between them. A join
// strategy may move a two-phase aggregation's groups so that its first phase
// reduces nothing: then the two phases cost an operator and a copy more than
// one, and only this form takes them back. The members go to the sites the
// partial results went to: the shuffle's dimensions, which number the
// partial's groups, mapped back to R's.
bool one_phase_aggregation(IaPlan& p, int at) {
  const IaNode& f = p.node(at);
  if (f.kind() != Kind::LocalAgg || f.agg().phase != AggParams::Phase::Final) return false;
  const int below = input(p, at);
  const bool shuffled = p.node(below).kind() == Kind::Shuffle;
  const int part = shuffled ? input(p, below) : below;
  const IaNode& pn = p.node(part);
  if (pn.kind() != Kind::LocalAgg || pn.agg().phase != AggParams::Phase::Partial) return false;
  if (pn.tra_node != f.tra_node) return false;  // the two phases of one aggregation, as R2-5 split it
  const std::vector<int> group_by = pn.agg().group_by;  // R's dimensions, in the partial results' key order
  std::vector<int> whole_groups;  // the final phase's groups, as R's dimensions
  for (int g : f.agg().group_by) whole_groups.push_back(group_by.at(static_cast<size_t>(g)));
  const int r = input(p, part);
  int members = r;
  if (shuffled) {
    const IaNode& sh = p.node(below);
    Placement sites = sh.placement();
    Shape grid = p.node(r).type.frontier;  // R's extents, as R2-6 numbers a shuffle of its inputs
    for (int& d : sites.dims) {
      const Index n = sh.site_grid().at(static_cast<size_t>(d));
      d = group_by.at(static_cast<size_t>(d));
      grid.at(static_cast<size_t>(d)) = n;
    }
    members = add_node(p, make_shuffle(r, sites.dims, std::move(grid)));
    p.node(members).placement() = std::move(sites);
  }
  IaNode whole = p.node(at);
  whole.inputs = {members};
  whole.agg().group_by = std::move(whole_groups);
  whole.agg().phase = AggParams::Phase::Whole;
  const int nw = add_node(p, std::move(whole));
  redirect(p, at, nw);
  return true;
}

// R2-5 in either direction: variant 0 splits, variant 1 merges.
bool aggregation_phases(IaPlan& p, int at, int variant) { return variant == 0 ? two_phase_aggregation(p, at) : one_phase_aggregation(p, at); }

// R2-6: ⋈(Bcast(Rl), Rr) ≡ ⋈(Rl, Bcast(Rr)) ≡ ⋈(Shuf(kl)(Rl), Shuf(kr)(Rr)).
bool join_variant(IaPlan& p, int at, int variant) {
  const IaNode& j = p.node(at);
  if (j.kind() != Kind::LocalJoin) return false;
  if (j.join().has_base && j.join().base_keys_left != j.join().keys_left) return false;  // keys extended by a join strategy
  const int l = unmoved(p, j.inputs[0]), r = unmoved(p, j.inputs[1]);
  if (p.node(l).is_replica() || p.node(r).is_replica()) return false;
  auto is_move = [&](int i, Kind k, int of, const std::vector<int>& dims) {
    const IaNode& m = p.node(i);
    return m.kind() == k && m.inputs[0] == of && (k != Kind::Shuffle || m.placement().dims == dims);
  };
  const int cl = j.inputs[0], cr = j.inputs[1];
  const bool already = variant == 0   ? is_move(cl, Kind::Bcast, l, {}) && cr == r
                       : variant == 1 ? cl == l && is_move(cr, Kind::Bcast, r, {})
                                      : is_move(cl, Kind::Shuffle, l, j.join().keys_left) && is_move(cr, Kind::Shuffle, r, j.join().keys_right);
  if (already) return false;
  // Broadcasting a relation that is on every site already is no variant.
  if ((variant == 0 && p.node(l).dist.everywhere) || (variant == 1 && p.node(r).dist.everywhere)) return false;
  const std::vector<int> kl = j.join().keys_left, kr = j.join().keys_right;
  int nl = l, nr = r;
  if (variant == 0) nl = add_node(p, make_bcast(l));
  else if (variant == 1) nr = add_node(p, make_bcast(r));
  else {
    // Both sides number the sites on one grid: the larger extent of each
    // joined dimension (a filter may have shrunk one side's frontier).
    Shape gl = p.node(l).type.frontier, gr = p.node(r).type.frontier;
    for (size_t i = 0; i < kl.size(); ++i) {
      const Index g = std::max(gl[static_cast<size_t>(kl[i])], gr[static_cast<size_t>(kr[i])]);
      gl[static_cast<size_t>(kl[i])] = gr[static_cast<size_t>(kr[i])] = g;
    }
    nl = add_node(p, make_shuffle(l, kl, gl));
    nr = add_node(p, make_shuffle(r, kr, gr));
  }
  IaNode nj = p.node(at);
  nj.inputs = {nl, nr};
  const int n = add_node(p, std::move(nj));
  redirect(p, at, n);
  return true;
}

// R2-7: Shuf(d)(⋈(Shuf(kl)(Rl), Shuf(kr)(Rr))) ≡ ⋈(Shuf(kl)(Rl), Shuf(kr)(Rr)) when
// d ⊆ kl. Checked in its exact form: a shuffle whose every tuple is already on
// its destination site is dropped.
bool drop_idle_shuffle(IaPlan& p, int at) {
  const IaNode& n = p.node(at);
  if (n.kind() != Kind::Shuffle || n.predicted_floats != 0 || p.node(input(p, at)).dist.everywhere) return false;
  if (p.node(input(p, at)).scattered) return false;
  redirect(p, at, input(p, at));
  return true;
}

}  // namespace

const std::vector<Rule>& repartition_rules() {
  static const std::vector<Rule> rules = {
      {"R2-1",
       "only the last of consecutive broadcasts or shuffles is needed",
       single(last_movement_only),
       1,
       {IaNode::Kind::Bcast, IaNode::Kind::Shuffle}},
      {"R2-2", "filter before a broadcast or shuffle", single(filter_before_movement), 1, {IaNode::Kind::LocalFilter}},
      {"R2-3",
       "swap a broadcast or key-preserving shuffle with a one-to-one map",
       single(swap_map_and_movement),
       1,
       {IaNode::Kind::Bcast, IaNode::Kind::Shuffle, IaNode::Kind::LocalMap}},
      {"R2-4", "no shuffle before an aggregation whose groups already sit on one site each", single(aggregate_in_place), 1, {IaNode::Kind::LocalAgg}},
      {"R2-5",
       "aggregate on every site before shuffling (two-phase aggregation), or merge the two phases again",
       aggregation_phases,
       2,
       {IaNode::Kind::LocalAgg}},
      // R2-6 matches beyond its inputs: it looks through any chain of Bcasts and Shuffles below the join.
      {"R2-6", "a join by broadcasting either side or by shuffling both on the join keys", join_variant, 3, {IaNode::Kind::LocalJoin}, true},
      {"R2-7", "drop a shuffle that moves nothing (the result of the join is already placed)", single(drop_idle_shuffle), 1, {IaNode::Kind::Shuffle}},
  };
  return rules;
}

}  // namespace tra::physical
