// Shuf(dims)(R): every tuple to the site its key's dims give on the grid.
#include <algorithm>

#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

bool operator==(const ShuffleParams& a, const ShuffleParams& b) { return a.placement.same_as(b.placement) && a.site_grid == b.site_grid; }

namespace ops {

void infer_shuffle(IaNode& n, const Context& c) {
  const IaNode& x = c.in(n);
  ShuffleParams& p = n.shuffle();
  const int s = c.nsites;
  if (p.site_grid.empty()) p.site_grid = x.type.frontier;
  p.placement.fix_grid(p.site_grid, s);
  const Index f = volume(x.type.chunk_shape);
  std::vector<Index> sent(static_cast<size_t>(s), 0), received(static_cast<size_t>(s), 0);
  for (const auto& [k, site] : x.dist.at) {
    const int to = p.placement.site_of(k, p.site_grid, s);
    n.dist.at.emplace_back(k, to);  // from everywhere: each site keeps its own, nothing moves
    if (!x.dist.everywhere && site != to) {
      n.predicted_floats += f;
      sent[static_cast<size_t>(site)] += f;
      received[static_cast<size_t>(to)] += f;
    }
  }
  n.paper_cost = static_cast<double>(x.dist.tuples() * f);
  n.site_floats_in = std::max(max_of(sent), max_of(received));
}

std::string text(const ShuffleParams& p) { return " " + p.placement.str() + " grid " + shape_string(p.site_grid); }

}  // namespace ops
}  // namespace tra::physical
