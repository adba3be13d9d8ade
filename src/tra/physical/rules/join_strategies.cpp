#include "tra/physical/rules/join_strategies.hpp"

#include <algorithm>
#include <numeric>

#include "tra/core/key.hpp"
#include "tra/core/processor_grid.hpp"
#include "tra/physical/plan_edit.hpp"

namespace tra::physical {

const char* family_name(Family f) {
  for (const FamilyEntry& e : kFamilies)
    if (e.family == f) return e.name;
  return "?";
}

bool is_aggregating(const std::string& name) {
  for (const FamilyEntry& e : kFamilies)
    if (name == e.name) return e.aggregating;
  return false;
}
namespace {

using Kind = IaNode::Kind;

constexpr size_t kGridsPerP = 4;  // processor grids tried per set of voxel dimensions

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }
int index_in(const std::vector<int>& v, int x) { return static_cast<int>(std::find(v.begin(), v.end(), x) - v.begin()); }

// The relation before any movement or replication a strategy put in front of the join.
int stripped(const IaPlan& p, int i) {
  while (p.node(i).moves() || p.node(i).is_replica()) i = p.node(i).inputs[0];
  return i;
}

struct Geometry {
  int kl = 0, kr = 0;
  std::vector<int> keys_left, keys_right, right_rest;
  Shape frontier;  // of the natural output key: left dims, then the right's other dims
  std::vector<int> in_left, in_right;  // natural dim -> that input's dim, or -1
};

Geometry geometry(const IaPlan& p, int join) {
  const IaNode& j = p.node(join);
  Geometry g;
  g.keys_left = j.join().has_base ? j.join().base_keys_left : j.join().keys_left;
  g.keys_right = j.join().has_base ? j.join().base_keys_right : j.join().keys_right;
  const IaNode& a = p.node(stripped(p, j.inputs[0]));
  const IaNode& b = p.node(stripped(p, j.inputs[1]));
  g.kl = a.type.key_arity();
  g.kr = b.type.key_arity();
  g.right_rest = complement(g.kr, g.keys_right);
  for (int o = 0; o < g.kl; ++o) {
    g.in_left.push_back(o);
    const int k = index_in(g.keys_left, o);
    g.in_right.push_back(k < static_cast<int>(g.keys_left.size()) ? g.keys_right[static_cast<size_t>(k)] : -1);
    // A joined dimension spans both sides' extents (a filter may have shrunk one).
    Index f = a.type.frontier[static_cast<size_t>(o)];
    if (g.in_right.back() >= 0) f = std::max(f, b.type.frontier[static_cast<size_t>(g.in_right.back())]);
    g.frontier.push_back(f);
  }
  for (int r : g.right_rest) {
    g.frontier.push_back(b.type.frontier[static_cast<size_t>(r)]);
    g.in_left.push_back(-1);
    g.in_right.push_back(r);
  }
  return g;
}

// The natural output dimensions the aggregation after the join sums away, if
// one follows (through a shuffle) and the join's keys are its natural ones.
std::vector<int> aggregated_dims(const IaPlan& p, int join, const Geometry& g) {
  const IaNode& j = p.node(join);
  if (!(j.join().has_base ? j.join().base_out_key : j.join().out_key).identity()) return {};
  const auto users = consumers(p);
  std::vector<int> frontier = users[static_cast<size_t>(join)];
  for (size_t step = 0; step < 3 && frontier.size() == 1; ++step) {
    const IaNode& u = p.node(frontier[0]);
    if (u.kind() == Kind::LocalAgg) return complement(static_cast<int>(g.frontier.size()), u.agg().group_by);
    if (!u.moves()) break;
    frontier = users[static_cast<size_t>(frontier[0])];
  }
  return {};
}

std::string family_of(const std::vector<int>& P, const std::vector<int>& summed, const Geometry& g, const std::vector<int>& live) {
  bool touches_left = false, touches_right = false, all_summed = true, any_summed = false;
  for (int o : P) {
    touches_left |= g.in_left[static_cast<size_t>(o)] >= 0;
    touches_right |= g.in_right[static_cast<size_t>(o)] >= 0;
    all_summed &= contains(summed, o);
    any_summed |= contains(summed, o);
  }
  if (summed.empty()) {
    if (!touches_left || !touches_right) return family_name(Family::Broadcast);
    bool shared = true;
    for (int o : P) shared &= g.in_left[static_cast<size_t>(o)] >= 0 && g.in_right[static_cast<size_t>(o)] >= 0;
    return family_name(shared ? Family::CoPartition : Family::Replicate);
  }
  if (all_summed) return family_name(Family::CMM);
  if (!touches_left || !touches_right) return family_name(Family::BMM);
  if (P.size() == live.size()) return family_name(Family::RMM);
  return family_name(any_summed ? Family::Mixed : Family::TwoD);
}

// A join strategy's replication: a LocalMap from each tuple of `in` to the
// keys `expand` makes of its key (Replicate or Spread: the chunk shared, not
// copied), of type `out`; stripped by the next strategy.
int add_replica(IaPlan& p, int in, RelType out, Expansion expand, int arity) {
  IaNode m;
  m.params = MapParams{};
  m.inputs = {in};
  m.out_type = std::move(out);
  m.map().expand = std::move(expand);
  m.map().arity = arity;
  m.map().replica = true;
  return add_node(p, std::move(m));
}

// The processor grid a strategy places its voxels on: its own, or, for one
// dimension, min(extent, s) sites.
ProcGrid voxel_grid(const JoinStrategy& s, const Geometry& g, int nsites) {
  if (!s.grid.empty()) return s.grid;
  return {std::min<Index>(g.frontier[static_cast<size_t>(s.P[0])], nsites)};
}

// `t` with dimensions of these extents added after its own.
RelType with_dims(RelType t, const Shape& added) {
  t.frontier.insert(t.frontier.end(), added.begin(), added.end());
  return t;
}

}  // namespace

std::string JoinStrategy::name() const {
  if (keep_in_place >= 0) return family + (keep_in_place == 0 ? " keep left, broadcast right" : " keep right, broadcast left");
  std::string d;
  for (int o : P) d += (d.empty() ? "" : ",") + std::to_string(o);
  return family + " P=<" + d + ">" + (grid.empty() ? "" : " on " + grid_str(grid));
}

std::vector<JoinStrategy> join_strategies(const IaPlan& p, int join) {
  const Geometry g = geometry(p, join);
  const std::vector<int> summed = aggregated_dims(p, join, g);
  std::vector<int> live;  // dimensions worth partitioning on
  for (size_t o = 0; o < g.frontier.size(); ++o)
    if (g.frontier[o] > 1) live.push_back(static_cast<int>(o));
  std::vector<JoinStrategy> out;
  const std::string bcast = family_name(summed.empty() ? Family::Broadcast : Family::BMM);
  out.push_back({bcast, {}, {}, 1});
  out.push_back({bcast, {}, {}, 0});
  if (live.size() > 12) return out;  // 4096 subsets and more: keep the broadcast forms only
  for (unsigned mask = 1; mask < (1u << live.size()); ++mask) {
    std::vector<int> P;
    for (size_t b = 0; b < live.size(); ++b)
      if (mask & (1u << b)) P.push_back(live[b]);
    const std::string family = family_of(P, summed, g, live);
    if (P.size() == 1) {
      out.push_back({family, P, {}, -1});
      continue;
    }
    std::vector<Index> extents;
    for (int o : P) extents.push_back(g.frontier[static_cast<size_t>(o)]);
    const std::vector<ProcGrid> grids = full_grids(extents, p.nsites);
    // The most balanced few: more shapes of one P differ little.
    for (size_t k = 0; k < grids.size() && k < kGridsPerP; ++k) out.push_back({family, P, grids[k], -1});
  }
  return out;
}

JoinStrategy matched_dims_strategy(const IaPlan& p, int join) {
  const Geometry g = geometry(p, join);
  const std::vector<int> summed = aggregated_dims(p, join, g);
  std::vector<int> live, P;
  for (size_t o = 0; o < g.frontier.size(); ++o)
    if (g.frontier[o] > 1) live.push_back(static_cast<int>(o));
  for (int o : live)
    if (g.in_left[static_cast<size_t>(o)] >= 0 && g.in_right[static_cast<size_t>(o)] >= 0) P.push_back(o);
  if (P.empty()) return {family_name(summed.empty() ? Family::Broadcast : Family::BMM), {}, {}, 0};
  JoinStrategy s{family_of(P, summed, g, live), P, {}, -1};
  if (P.size() > 1) {
    std::vector<Index> extents;
    for (int o : P) extents.push_back(g.frontier[static_cast<size_t>(o)]);
    const std::vector<ProcGrid> grids = full_grids(extents, p.nsites);
    if (grids.empty()) return {family_name(summed.empty() ? Family::Broadcast : Family::BMM), {}, {}, 0};
    s.grid = grids.front();
  }
  return s;
}

namespace {

// The join's keys before any strategy: a strategy's added dimensions are
// dropped again by the next one.
void remember_base_keys(IaNode& j) {
  if (j.join().has_base) return;
  j.join().has_base = true;
  j.join().base_keys_left = j.join().keys_left;
  j.join().base_keys_right = j.join().keys_right;
  j.join().base_out_key = j.join().out_key;
}

int broadcast(IaPlan& p, int x) { return p.node(x).dist.everywhere ? x : add_node(p, make_bcast(x)); }

// What one strategy's placement of its voxels needs of both sides.
struct Voxels {
  const JoinStrategy& s;
  const Geometry& g;
  ProcGrid grid;
  Index sites_along(int o) const { return grid[static_cast<size_t>(index_in(s.P, o))]; }
};

// One side brought to the voxels' sites: the relation that feeds the join,
// and the dimensions of P it was replicated over (none when it was shuffled
// whole or broadcast).
struct Side {
  int node;
  std::vector<int> replicated;
};

// `have` maps natural dims to the side's own. A side missing some dimensions
// of P is replicated over them (insertDim, duplicate): one copy per site
// coordinate c of each missing dimension goes to the sites of that
// coordinate, and there each copy becomes the keys c, c + P, c + 2P, ...
// that those sites hold (a local map after the move), so that no two copies
// of a tuple travel to the same site. A side missing all of P is broadcast.
Side place_side(IaPlan& p, const Voxels& v, int base, const std::vector<int>& have, int arity) {
  std::vector<int> missing;
  for (int o : v.s.P)
    if (have[static_cast<size_t>(o)] < 0) missing.push_back(o);
  if (missing.size() == v.s.P.size()) return {broadcast(p, base), {}};
  int src = base;
  Shape coords, extents;  // per missing dimension: site coordinates, and its keys
  for (int o : missing) {
    coords.push_back(v.sites_along(o));
    extents.push_back(v.g.frontier[static_cast<size_t>(o)]);
  }
  if (!missing.empty()) {
    const int copies = static_cast<int>(volume(coords));
    src = add_replica(p, base, with_dims(p.node(base).type, coords), Replicate{coords}, copies);
  }
  // Sites numbered on the voxels' grid, the same for both sides.
  Shape site_grid = p.node(base).type.frontier;
  for (size_t t = 0; t < missing.size(); ++t) site_grid.push_back(coords[t]);
  std::vector<int> dims;
  for (int o : v.s.P) {
    const int own = have[static_cast<size_t>(o)];
    dims.push_back(own >= 0 ? own : arity + index_in(missing, o));
    site_grid[static_cast<size_t>(dims.back())] = own >= 0 ? v.g.frontier[static_cast<size_t>(o)] : v.sites_along(o);
  }
  const int sh = add_node(p, make_shuffle(src, dims, site_grid));
  p.node(sh).placement().grid = v.grid;  // both sides on the strategy's processor grid
  if (missing.empty()) return {sh, {}};
  // At its sites, coordinate c of a missing dimension stands for the keys
  // c, c + P, ... below its extent.
  const Spread spread{coords, extents, arity};
  Index most = 1;
  for (size_t t = 0; t < coords.size(); ++t) most *= (extents[t] + coords[t] - 1) / coords[t];
  return {add_replica(p, sh, with_dims(p.node(base).type, extents), spread, static_cast<int>(most)), missing};
}

// The join's keys and output key once sides were replicated: the added
// dimensions join too, and the output is put back in the natural layout
// (left dims, then the right's other dims).
void join_added_dims(JoinParams& j, const Geometry& g, const Side& left, const Side& right) {
  std::vector<int> keys_left = g.keys_left, keys_right = g.keys_right;
  KeyFn out_key = j.base_out_key;
  const std::vector<int>& ml = left.replicated;
  const std::vector<int>& mr = right.replicated;
  for (size_t t = 0; t < ml.size(); ++t) {
    keys_left.push_back(g.kl + static_cast<int>(t));
    keys_right.push_back(g.in_right[static_cast<size_t>(ml[t])]);
  }
  for (size_t t = 0; t < mr.size(); ++t) {
    keys_left.push_back(mr[t]);
    keys_right.push_back(g.kr + static_cast<int>(t));
  }
  if (!ml.empty() || !mr.empty()) {
    const std::vector<int> rest_now = complement(g.kr + static_cast<int>(mr.size()), keys_right);
    std::vector<int> perm;
    for (int o = 0; o < static_cast<int>(g.frontier.size()); ++o) {
      if (o < g.kl) perm.push_back(o);
      else if (contains(ml, o)) perm.push_back(g.kl + index_in(ml, o));
      else perm.push_back(g.kl + static_cast<int>(ml.size()) + index_in(rest_now, g.in_right[static_cast<size_t>(o)]));
    }
    out_key = out_key.after(KeyFn::projecting(perm, g.kl + static_cast<int>(ml.size() + rest_now.size())));
  }
  j.keys_left = std::move(keys_left);
  j.keys_right = std::move(keys_right);
  j.out_key = std::move(out_key);
}

// The face of the voxel grid an aggregation after the join sends its groups
// to (natural dims, their sites and strides); empty: its Table-1 placement.
struct Face {
  std::vector<int> dims;
  ProcGrid grid;
  std::vector<Index> strides;
};

// A shuffle of `in` to the face, for an aggregation grouping by `group_by`:
// the face's coordinates of the dimensions the groups keep, spread over the
// summed ones by each group's block index (core/placement.hpp), so that every
// site takes groups and one of each group's partial results is already where
// it goes. Its dims are natural ones, or with `group_key` their places in the
// group key. With no dimension of P kept: Shuf(group_by).
IaNode shuffle_to_face(const Face& face, int in, const std::vector<int>& group_by, bool group_key, const Shape& site_grid) {
  std::vector<int> dims;
  Placement on_face;
  on_face.kind = Placement::Kind::Part;
  for (size_t t = 0; t < face.dims.size(); ++t)
    if (contains(group_by, face.dims[t])) {
      dims.push_back(group_key ? index_in(group_by, face.dims[t]) : face.dims[t]);
      on_face.grid.push_back(face.grid[t]);
      on_face.strides.push_back(face.strides[t]);
    } else {
      on_face.spread.push_back({face.grid[t], face.strides[t]});
    }
  if (dims.empty()) {
    dims = group_by;
    if (group_key) std::iota(dims.begin(), dims.end(), 0);
    on_face.spread.clear();
  }
  IaNode sh = make_shuffle(in, dims, site_grid);
  on_face.dims = sh.placement().dims;
  sh.placement() = std::move(on_face);
  return sh;
}

// Whether aggregation `u` is the first phase of a two-phase one (R2-5): it
// feeds one shuffle whose readers are its second phase (copies of the same
// aggregation). An aggregation whose result the next statement shuffles is
// a whole one.
bool first_phase(const IaPlan& p, const std::vector<std::vector<int>>& users, int u) {
  const auto& next = users[static_cast<size_t>(u)];
  if (next.size() != 1 || p.node(next[0]).kind() != Kind::Shuffle) return false;
  for (int f : users[static_cast<size_t>(next[0])])
    if (p.node(f).kind() != Kind::LocalAgg || p.node(f).tra_node != p.node(u).tra_node) return false;
  return true;
}

// An aggregation that R2-4 let run in place under the old placement may not
// be in place under the new one: it gets a shuffle to the face back, and
// R2-4, R2-5 and R2-7 settle it again. A two-phase aggregation keeps its
// first phase and gets a new shuffle to the face before its second
// (appended, so that the edit can be taken back).
void regroup_on_face(IaPlan& p, int join, const Face& face) {
  const auto users = consumers(p);
  for (int u : users[static_cast<size_t>(join)]) {
    if (p.node(u).kind() != Kind::LocalAgg) continue;
    const std::vector<int> group_by = p.node(u).agg().group_by;
    if (first_phase(p, users, u)) {
      const int old = users[static_cast<size_t>(u)][0];
      if (face.dims.empty()) continue;  // its Table-1 placement stands
      IaNode sh = shuffle_to_face(face, u, group_by, true, p.node(old).site_grid());
      if (sh.placement().same_as(p.node(old).placement())) continue;
      const int ns = add_node(p, std::move(sh));
      for (int f : users[static_cast<size_t>(old)])
        for (int& i : p.node(f).inputs)
          if (i == old) i = ns;
      continue;
    }
    const int ns = add_node(p, shuffle_to_face(face, join, group_by, false, {}));
    for (int& i : p.node(u).inputs)
      if (i == join) i = ns;
  }
}

}  // namespace

void apply_join_strategy(IaPlan& p, int join, const JoinStrategy& s) {
  remember_base_keys(p.node(join));
  const Geometry g = geometry(p, join);
  const int a = stripped(p, p.node(join).inputs[0]);
  const int b = stripped(p, p.node(join).inputs[1]);
  Side left{a, {}}, right{b, {}};
  Face face;
  if (s.keep_in_place == 0) right.node = broadcast(p, b);
  else if (s.keep_in_place == 1) left.node = broadcast(p, a);
  else {
    const Voxels v{s, g, voxel_grid(s, g, p.nsites)};
    left = place_side(p, v, a, g.in_left, g.kl);
    right = place_side(p, v, b, g.in_right, g.kr);
    if (p.node(join).join().base_out_key.identity()) face = {s.P, v.grid, row_major_strides(v.grid)};  // the join yields the natural voxel key
  }
  JoinParams& j = p.node(join).join();
  join_added_dims(j, g, left, right);
  p.node(join).inputs = {left.node, right.node};
  regroup_on_face(p, join, face);
}

std::vector<int> partial_aggregations(const IaPlan& p, const std::vector<int>& order) {
  std::vector<int> partial;
  std::vector<std::vector<int>> users;  // built only if an aggregation is left partial
  for (int a : order) {
    const IaNode& n = p.node(a);
    if (n.kind() != Kind::LocalAgg || !n.scattered || p.node(n.inputs[0]).kind() == Kind::Shuffle) continue;
    if (users.empty()) {
      users.resize(p.nodes.size());
      for (int i : order)
        for (int x : p.node(i).inputs) users[static_cast<size_t>(x)].push_back(i);
    }
    // The first phase of a two-phase aggregation is meant to be partial: it
    // feeds only the shuffle to its second phase, the same aggregation. (A
    // shuffle that takes its partial results to a join instead, a strategy's
    // co-partitioning, leaves them uncombined.)
    bool first_phase = std::find(p.roots.begin(), p.roots.end(), a) == p.roots.end();
    for (int u : users[static_cast<size_t>(a)]) {
      first_phase = first_phase && p.node(u).kind() == Kind::Shuffle;
      for (int v : first_phase ? users[static_cast<size_t>(u)] : std::vector<int>{})
        first_phase = first_phase && p.node(v).kind() == Kind::LocalAgg && p.node(v).tra_node == n.tra_node;
    }
    if (!first_phase) partial.push_back(a);
  }
  return partial;
}

void regroup(IaPlan& p, const std::vector<int>& aggregations) {
  for (int a : aggregations) {
    const IaNode& n = p.node(a);
    const int sh = add_node(p, make_shuffle(n.inputs[0], n.agg().group_by));  // `n` dangles from here
    p.node(a).inputs = {sh};
  }
}

}  // namespace tra::physical
