// λL(keyMapFunc, arrayMapFunc), one tuple to one; or one tuple to `arity`
// (re-chunking, tiling, a join strategy's replication).
#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

bool operator==(const MapParams& a, const MapParams& b) {
  return a.key_map == b.key_map && a.array_map == b.array_map && a.call_flops == b.call_flops && a.expand == b.expand && a.arity == b.arity &&
         a.replica == b.replica;
}

namespace ops {

namespace {

// Kernel calls per tuple: none for a map of keys alone or an expansion whose
// tuples share their input's chunk (a replication, a retile that keeps it
// whole: exec/bound_kernels.cpp), one for a map of the arrays, one per
// piece for a cut.
Index calls_per_tuple(const MapParams& p) {
  if (!p.expand) return p.array_map.identity() ? 0 : 1;
  if (shares_chunk(*p.expand)) return 0;
  if (const auto* r = std::get_if<Retile>(&*p.expand); r && r->split == Shape(r->split.size(), 1)) return 0;
  return p.arity;
}

}  // namespace

void infer(MapParams& p, IaNode& n, const Context& c) {
  const IaNode& x = c.in(n);
  n.dist.everywhere = x.dist.everywhere;
  if (!p.expand) n.dist.at.reserve(x.dist.at.size());
  for (const auto& [k, site] : x.dist.at) {
    if (p.expand)
      for (Key& o : expand_keys(*p.expand, k)) n.dist.at.emplace_back(std::move(o), site);
    else n.dist.at.emplace_back(p.key_map(k), site);
  }
  const std::vector<Index> count = per_site(x.dist, c.nsites);
  // A cut copies each element of its input's chunk into a piece: a loop
  // operation's worth each, as a copy loop (0.2-0.75 ms measured for
  // chain.yaml's 41k-element cut, where its calls alone predicted 1 us).
  const double per_tuple = p.call_flops + (p.expand && calls_per_tuple(p) > 0 ? static_cast<double>(volume(x.type.chunk_shape)) : 0);
  n.flops = per_tuple * static_cast<double>(x.dist.tuples()) * (x.dist.everywhere ? c.nsites : 1);
  n.site_flops = per_tuple * static_cast<double>(max_of(count));
  n.site_calls = max_of(count) * calls_per_tuple(p);
}

double seconds(const MapParams&, const IaNode& n, const Rates& r, bool) { return fixed_seconds(n, r) + n.site_flops / r.loop_flops; }

namespace {

std::string expansion_text(const Expansion& e) {
  if (const auto* r = std::get_if<Retile>(&e))
    return "retile split " + shape_string(r->split) + " group " + shape_string(r->group) + " piece " + shape_string(r->piece);
  if (const auto* t = std::get_if<TileKeys>(&e))
    return "tile dim " + std::to_string(t->dim) + " size " + std::to_string(t->size) + " pieces " + std::to_string(t->pieces);
  if (const auto* c = std::get_if<Replicate>(&e)) return "replicate " + shape_string(c->coords);
  const Spread& s = std::get<Spread>(e);
  return "spread " + shape_string(s.coords) + " below " + shape_string(s.extents) + " from " + std::to_string(s.first);
}

// How an expansion's tuples come from one, in words.
std::string expansion_words(const Expansion& e, int arity) {
  if (const auto* r = std::get_if<Retile>(&e)) return "cut to " + shape_string(r->piece);
  if (const auto* t = std::get_if<TileKeys>(&e)) return "keyTileOp(" + std::to_string(t->dim) + "," + std::to_string(t->size) + "), arrayTileOp";
  if (std::holds_alternative<Replicate>(e)) return "insertDim, duplicate x" + std::to_string(arity) + " (one per site coordinate)";
  return "duplicate x" + std::to_string(arity) + " on each site (keys of its coordinates)";
}

}  // namespace

std::string words(const MapParams& p, const IaNode&) {
  if (p.expand) return expansion_words(*p.expand, p.arity);
  return key_text(p.key_map) + ", " + (p.array_map.identity() ? "idOp" : p.array_map.text());
}

std::string text(const MapParams& p) {
  if (p.expand) return " " + expansion_text(*p.expand) + " x" + std::to_string(p.arity) + (p.replica ? " replica" : "");
  return " " + key_text(p.key_map) + ", " + (p.array_map.identity() ? "idOp" : p.array_map.text());
}

std::vector<std::int64_t> bytes_passed_through(const MapParams&, const IaNode&, const Context& c) {
  return std::vector<std::int64_t>(static_cast<size_t>(c.nsites), 0);  // each tuple's chunk is made afresh
}

// Its key map and expansion are checked by inference (the keys they make).
std::string typing_problem(const MapParams&, const IaNode&, const Context&) { return ""; }

}  // namespace ops
}  // namespace tra::physical
