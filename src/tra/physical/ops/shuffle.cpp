// Shuf(dims)(R): every tuple to the site its key's dims give on the grid.
#include <algorithm>
#include <map>

#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

bool operator==(const ShuffleParams& a, const ShuffleParams& b) { return a.placement.same_as(b.placement) && a.site_grid == b.site_grid; }

namespace ops {

void infer(ShuffleParams& p, IaNode& n, const Context& c) {
  const IaNode& x = c.in(n);
  const int s = c.nsites;
  if (p.site_grid.empty()) p.site_grid = x.type.frontier;
  p.placement.fix_grid(p.site_grid, s);
  const Index f = volume(x.type.chunk_shape);
  if (x.type.sparse() && !x.dist.everywhere) n.invalid = "shuffles a sparse relation (its blocks are read where they are needed instead)";
  // A sparse product's result travels as its filled rows alone.
  const std::vector<Index>* filled = x.dist.filled_rows.get();
  const Index row_floats = filled && f > 0 ? f / x.type.chunk_shape.at(0) : 0;
  std::vector<Index> sent(static_cast<size_t>(s), 0), received(static_cast<size_t>(s), 0);
  n.dist.at.reserve(x.dist.at.size());
  for (size_t i = 0; i < x.dist.at.size(); ++i) {
    const auto& [k, site] = x.dist.at[i];
    const int to = p.placement.site_of(k, p.site_grid, s);
    n.dist.at.emplace_back(k, to);  // from everywhere: each site keeps its own, nothing moves
    if (!x.dist.everywhere && site != to) {
      const Index floats = filled ? (*filled)[i] * row_floats : f;
      n.predicted_floats += floats;
      sent[static_cast<size_t>(site)] += floats;
      received[static_cast<size_t>(to)] += floats;
    }
  }
  n.paper_cost = static_cast<double>(x.dist.tuples() * f);
  n.site_floats_in = std::max(max_of(sent), max_of(received));
}

// A start-up latency and the busiest site's bytes sent or received.
double seconds(const ShuffleParams&, const IaNode& n, const Rates& r, bool) {
  return r.latency + static_cast<double>(n.site_floats_in) * static_cast<double>(element_bytes(n.type.dtype)) / r.shuffle_bytes;
}

std::string text(const ShuffleParams& p) { return " " + p.placement.str() + " grid " + shape_string(p.site_grid); }

std::string words(const ShuffleParams& p, const IaNode&) { return dims_list(p.placement.dims); }

// The tuples that stay on their site.
std::vector<std::int64_t> bytes_passed_through(const ShuffleParams&, const IaNode& n, const Context& c) {
  std::vector<std::int64_t> bytes(static_cast<size_t>(c.nsites), 0);
  const IaNode& in = c.in(n);
  if (in.dist.everywhere || n.dist.everywhere) return bytes;
  const std::int64_t chunk = volume(n.type.chunk_shape) * static_cast<std::int64_t>(element_bytes(n.type.dtype));
  std::map<Key, int> to;
  for (const auto& [key, site] : n.dist.at) to.emplace(key, site);
  for (const auto& [key, site] : in.dist.at)
    if (auto t = to.find(key); t != to.end() && t->second == site && site >= 0 && site < c.nsites) bytes[static_cast<size_t>(site)] += chunk;
  return bytes;
}

std::string typing_problem(const ShuffleParams& p, const IaNode& n, const Context&) {
  if (n.dist.everywhere) return "a Shuffle whose result is on every site";
  return placement_problem(p.placement, n.type.key_arity());
}

std::vector<std::int64_t> filled_rows_buffer_bytes(const IaNode& n, const Context& c) {
  const IaNode& in = c.in(n);
  if (!in.dist.filled_rows || in.dist.everywhere) return {};
  const Index rows = in.type.chunk_shape.empty() ? 0 : in.type.chunk_shape[0];
  const std::int64_t row_bytes = rows == 0 ? 0 : volume(in.type.chunk_shape) / rows * static_cast<std::int64_t>(element_bytes(in.type.dtype));
  std::vector<std::int64_t> bytes(static_cast<size_t>(c.nsites), 0);
  for (size_t i = 0; i < in.dist.at.size(); ++i) {
    const int from = in.dist.at[i].second, to = n.dist.at[i].second;
    if (from == to) continue;
    const std::int64_t b = (*in.dist.filled_rows)[i] * row_bytes;
    bytes[static_cast<size_t>(from)] += b;
    bytes[static_cast<size_t>(to)] += b;
  }
  return bytes;
}

}  // namespace ops
}  // namespace tra::physical
