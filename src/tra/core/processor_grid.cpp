#include "tra/core/processor_grid.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include "tra/common/error.hpp"

namespace tra {
namespace {

Index ceil_div(Index a, Index b) { return (a + b - 1) / b; }

// What processor_grid minimises, in order.
std::tuple<Index, Index, Index> rank(const std::vector<Index>& extents, const ProcGrid& g) {
  Index busiest = 1, largest = 0, used = 1;
  for (size_t d = 0; d < g.size(); ++d) {
    busiest *= ceil_div(extents[d], g[d]);
    largest = std::max(largest, ceil_div(extents[d], g[d]));
    used *= g[d];
  }
  return {busiest, largest, -used};
}

// Calls visit(g) for every grid with lo <= g[d] <= extents[d] and product <= nsites.
void each_grid(const std::vector<Index>& extents, int nsites, Index lo, const std::function<void(const ProcGrid&)>& visit) {
  ProcGrid g(extents.size(), lo);
  std::function<void(size_t, Index)> rec = [&](size_t d, Index left) {
    if (d == extents.size()) {
      visit(g);
      return;
    }
    for (Index p = lo; p <= std::min<Index>(extents[d], left); ++p) {
      g[d] = p;
      rec(d + 1, left / p);
    }
  };
  Index need = 1;
  for (size_t d = 0; d < extents.size(); ++d) need *= lo;
  if (need <= nsites) rec(0, nsites);
}

// Grids of the first criteria first; ties keep more sites on earlier dimensions.
bool before(const std::vector<Index>& extents, const ProcGrid& a, const ProcGrid& b) {
  const auto ra = rank(extents, a), rb = rank(extents, b);
  if (ra != rb) return ra < rb;
  return a > b;
}

}  // namespace

ProcGrid processor_grid(const std::vector<Index>& given, int nsites) {
  TRA_ASSERT(nsites >= 1, "processor_grid: " << nsites << " sites");
  std::vector<Index> extents = given;  // an empty relation's extent 0 places like 1
  for (Index& e : extents) e = std::max<Index>(e, 1);

  // One dimension (the common case) needs no search: min(e, s) sites.
  if (extents.size() == 1) return {std::min<Index>(extents[0], nsites)};
  // Plans ask for the same few grids over and over (every candidate plan is
  // inferred again): remember them.
  thread_local std::map<std::pair<std::vector<Index>, int>, ProcGrid> known;
  auto [it, fresh] = known.try_emplace({extents, nsites});
  if (!fresh) return it->second;
  ProcGrid best;
  each_grid(extents, nsites, 1, [&](const ProcGrid& g) {
    if (best.empty() || before(extents, g, best)) best = g;
  });
  it->second = best;
  return best;
}

std::vector<ProcGrid> full_grids(const std::vector<Index>& extents, int nsites) {
  std::vector<ProcGrid> out;
  each_grid(extents, nsites, 2, [&](const ProcGrid& g) {
    Index used = 1;
    for (Index p : g) used *= p;
    for (size_t d = 0; d < g.size(); ++d)
      if (g[d] < extents[d] && used / g[d] * (g[d] + 1) <= nsites) return;  // a dimension could get more
    out.push_back(g);
  });
  std::sort(out.begin(), out.end(), [&](const ProcGrid& a, const ProcGrid& b) { return before(extents, a, b); });
  return out;
}

int grid_site(const Key& key, const std::vector<int>& dims, const ProcGrid& grid, const std::vector<Index>& strides) {
  Index pos = 0;
  if (strides.empty())
    for (size_t i = 0; i < dims.size(); ++i) pos = pos * grid[i] + key[static_cast<size_t>(dims[i])] % grid[i];
  else
    for (size_t i = 0; i < dims.size(); ++i) pos += strides[i] * (key[static_cast<size_t>(dims[i])] % grid[i]);
  return static_cast<int>(pos);
}

std::vector<Index> row_major_strides(const ProcGrid& grid) {
  std::vector<Index> s(grid.size(), 1);
  for (size_t i = grid.size(); i-- > 1;) s[i - 1] = s[i] * grid[i];
  return s;
}

std::string grid_str(const ProcGrid& grid) {
  std::string s;
  for (Index p : grid) s += (s.empty() ? "" : "x") + std::to_string(p);
  return s;
}

}  // namespace tra
