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
int add_replica(IaPlan& p, int in, RelType out, Expansion expand, int arity, std::string detail) {
  IaNode m;
  m.params = MapParams{};
  m.inputs = {in};
  m.out_type = std::move(out);
  m.map().expand = std::move(expand);
  m.map().arity = arity;
  m.map().replica = true;
  m.detail = std::move(detail);
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

void apply_join_strategy(IaPlan& p, int join, const JoinStrategy& s) {
  {
    IaNode& j = p.node(join);
    if (!j.join().has_base) {
      j.join().has_base = true;
      j.join().base_keys_left = j.join().keys_left;
      j.join().base_keys_right = j.join().keys_right;
      j.join().base_out_key = j.join().out_key;
    }
  }
  const Geometry g = geometry(p, join);
  const int a = stripped(p, p.node(join).inputs[0]);
  const int b = stripped(p, p.node(join).inputs[1]);
  std::vector<int> keys_left = g.keys_left, keys_right = g.keys_right;
  KeyFn out_key = p.node(join).join().base_out_key;
  int na = a, nb = b;
  auto broadcast = [&](int x) { return p.node(x).dist.everywhere ? x : add_node(p, make_bcast(x)); };
  if (s.keep_in_place >= 0) {
    if (s.keep_in_place == 0) nb = broadcast(b);
    else na = broadcast(a);
  } else {
    const ProcGrid pgrid = voxel_grid(s, g, p.nsites);
    auto sites_along = [&](int o) { return pgrid[static_cast<size_t>(index_in(s.P, o))]; };
    // One side brought to the voxels' sites; `have` maps natural dims to its own.
    // A side missing some dimensions of P is replicated over them (insertDim,
    // duplicate): one copy per site coordinate c of each missing dimension
    // goes to the sites of that coordinate, and there each copy becomes the
    // keys c, c + P, c + 2P, ... that those sites hold (a local map after the
    // move), so that no two copies of a tuple travel to the same site.
    auto place = [&](int base, const std::vector<int>& have, int arity, std::vector<int>& missing) {
      std::vector<int> dims;
      for (int o : s.P)
        if (have[static_cast<size_t>(o)] < 0) missing.push_back(o);
      if (missing.size() == s.P.size()) return broadcast(base);
      int src = base;
      Shape coords, extents;  // per missing dimension: site coordinates, and its keys
      for (int o : missing) {
        coords.push_back(sites_along(o));
        extents.push_back(g.frontier[static_cast<size_t>(o)]);
      }
      if (!missing.empty()) {
        const int copies = static_cast<int>(volume(coords));
        src = add_replica(p, base, with_dims(p.node(base).type, coords), Replicate{coords}, copies,
                          "insertDim, duplicate x" + std::to_string(copies) + " (one per site coordinate)");
      }
      // Sites numbered on the voxels' grid, the same for both sides.
      Shape grid = p.node(base).type.frontier;
      for (size_t t = 0; t < missing.size(); ++t) grid.push_back(coords[t]);
      for (int o : s.P) {
        const int own = have[static_cast<size_t>(o)];
        dims.push_back(own >= 0 ? own : arity + index_in(missing, o));
        grid[static_cast<size_t>(dims.back())] = own >= 0 ? g.frontier[static_cast<size_t>(o)] : sites_along(o);
      }
      const int sh = add_node(p, make_shuffle(src, dims, grid));
      p.node(sh).placement().grid = pgrid;  // both sides on the strategy's processor grid
      if (missing.empty()) return sh;
      // At its sites, coordinate c of a missing dimension stands for the keys
      // c, c + P, ... below its extent.
      const Spread spread{coords, extents, arity};
      Index most = 1;
      for (size_t t = 0; t < coords.size(); ++t) most *= (extents[t] + coords[t] - 1) / coords[t];
      return add_replica(p, sh, with_dims(p.node(base).type, extents), spread, static_cast<int>(most),
                         "duplicate x" + std::to_string(most) + " on each site (keys of its coordinates)");
    };
    std::vector<int> missing_left, missing_right;
    na = place(a, g.in_left, g.kl, missing_left);
    nb = place(b, g.in_right, g.kr, missing_right);
    if (missing_left.size() == s.P.size()) missing_left.clear();  // broadcast, not replicated
    if (missing_right.size() == s.P.size()) missing_right.clear();
    // The added dimensions join too.
    for (size_t t = 0; t < missing_left.size(); ++t) {
      keys_left.push_back(g.kl + static_cast<int>(t));
      keys_right.push_back(g.in_right[static_cast<size_t>(missing_left[t])]);
    }
    for (size_t t = 0; t < missing_right.size(); ++t) {
      keys_left.push_back(missing_right[t]);
      keys_right.push_back(g.kr + static_cast<int>(t));
    }
    if (!missing_left.empty() || !missing_right.empty()) {
      // Back to the natural layout: left dims, then the right's other dims.
      const std::vector<int> rest_now = complement(g.kr + static_cast<int>(missing_right.size()), keys_right);
      std::vector<int> perm;
      for (int o = 0; o < static_cast<int>(g.frontier.size()); ++o) {
        if (o < g.kl) perm.push_back(o);
        else if (contains(missing_left, o)) perm.push_back(g.kl + index_in(missing_left, o));
        else perm.push_back(g.kl + static_cast<int>(missing_left.size()) + index_in(rest_now, g.in_right[static_cast<size_t>(o)]));
      }
      out_key = out_key.after(KeyFn::projecting(perm, g.kl + static_cast<int>(missing_left.size() + rest_now.size())));
    }
  }
  IaNode& j = p.node(join);
  j.inputs = {na, nb};
  j.join().keys_left = keys_left;
  j.join().keys_right = keys_right;
  j.join().out_key = out_key;
  // An aggregation that R2-4 let run in place under the old placement may
  // not be in place under the new one: it gets a shuffle back, and R2-4, R2-5
  // and R2-7 settle it again. Its groups go to a face of the voxel grid (the
  // coordinates of the dimensions it keeps, the summed ones at 0), where one
  // of each group's partial results already is; with no dimension of P kept,
  // to its Table-1 placement. A two-phase aggregation (R2-5) keeps its first
  // phase and gets a new shuffle to the face before its second.
  struct Face {
    std::vector<int> dims;  // natural dims
    ProcGrid grid;
    std::vector<Index> strides;
  } face;
  if (s.keep_in_place < 0 && p.node(join).join().base_out_key.identity()) {  // the join yields the natural voxel key
    const ProcGrid pgrid = voxel_grid(s, g, p.nsites);
    face = {s.P, pgrid, row_major_strides(pgrid)};
  }
  // A shuffle of `in` to the face, for an aggregation grouping by
  // `group_by`; its dims are natural ones, or with `group_key` their places
  // in the group key. Without a kept dimension of P: Shuf(group_by).
  auto to_face = [&](int in, const std::vector<int>& group_by, bool group_key, const Shape& site_grid) {
    std::vector<int> dims;
    ProcGrid grid;
    std::vector<Index> strides;
    for (size_t t = 0; t < face.dims.size(); ++t)
      if (contains(group_by, face.dims[t])) {
        dims.push_back(group_key ? index_in(group_by, face.dims[t]) : face.dims[t]);
        grid.push_back(face.grid[t]);
        strides.push_back(face.strides[t]);
      }
    if (dims.empty()) {
      dims = group_by;
      if (group_key) std::iota(dims.begin(), dims.end(), 0);
    }
    IaNode sh = make_shuffle(in, dims, site_grid);
    sh.placement().grid = grid;
    sh.placement().strides = strides;
    return sh;
  };
  const auto users = consumers(p);
  for (int u : users[static_cast<size_t>(join)]) {
    if (p.node(u).kind() != Kind::LocalAgg) continue;
    const std::vector<int> group_by = p.node(u).agg().group_by;
    const auto& next = users[static_cast<size_t>(u)];
    // R2-5's first phase feeds one shuffle whose readers are its second
    // phase (copies of the same aggregation); an aggregation whose result
    // the next statement shuffles is a whole one.
    bool first_phase = next.size() == 1 && p.node(next[0]).kind() == Kind::Shuffle;
    if (first_phase)
      for (int f : users[static_cast<size_t>(next[0])])
        first_phase = first_phase && p.node(f).kind() == Kind::LocalAgg && p.node(f).tra_node == p.node(u).tra_node;
    if (first_phase) {
      // Appended, so that the edit can be taken back.
      const int old = next[0];
      if (face.dims.empty()) continue;  // its Table-1 placement stands
      IaNode sh = to_face(u, group_by, true, p.node(old).site_grid());
      if (sh.placement().same_as(p.node(old).placement())) continue;
      const int ns = add_node(p, std::move(sh));
      for (int f : users[static_cast<size_t>(old)])
        for (int& i : p.node(f).inputs)
          if (i == old) i = ns;
      continue;
    }
    const int ns = add_node(p, to_face(join, group_by, false, {}));
    for (int& i : p.node(u).inputs)
      if (i == join) i = ns;
  }
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
