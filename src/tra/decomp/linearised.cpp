// EinDecomp §8.4: a general DAG optimised one longest path at a time.
#include <set>

#include "tra/decomp/planner.hpp"
#include "tra/decomp/search_space.hpp"

namespace tra::decomp {
namespace {

// The longest chain producer → consumer of vertices not labelled yet (counted
// in vertices), the first one found in deck order among equals.
std::vector<size_t> longest_path(const Graph& g, const std::vector<bool>& labelled) {
  const size_t n = g.vertices.size();
  std::vector<int> length(n, 0), prev(n, -1);
  int end = -1;
  for (size_t v = 0; v < n; ++v) {
    if (labelled[v]) continue;
    length[v] = 1;
    for (const auto& in : g.vertices[v].inputs) {
      const int u = in.producer;
      if (u >= 0 && !labelled[static_cast<size_t>(u)] && length[static_cast<size_t>(u)] + 1 > length[v]) {
        length[v] = length[static_cast<size_t>(u)] + 1;
        prev[v] = u;
      }
    }
    if (end < 0 || length[v] > length[static_cast<size_t>(end)]) end = static_cast<int>(v);
  }
  std::vector<size_t> path;
  for (int v = end; v >= 0; v = prev[static_cast<size_t>(v)]) path.insert(path.begin(), static_cast<size_t>(v));
  return path;
}

}  // namespace

Plan plan_linearised(const Graph& g, Index p) {
  const SearchSpace s(g, p);
  const size_t n = g.vertices.size();
  std::vector<bool> labelled(n, false);
  std::vector<int> chosen(n, -1);  // candidate index of each labelled vertex
  size_t left = n;
  while (left > 0) {
    const std::vector<size_t> path = longest_path(g, labelled);
    // M[i][o]: the lowest cost of the path up to its i-th vertex with output grid o.
    std::vector<std::vector<Cost>> M(path.size());
    std::vector<std::vector<int>> best(path.size());  // [i][o] -> candidate
    std::vector<std::vector<int>> from(path.size());  // [i][candidate] -> output grid of path[i-1] used
    for (size_t i = 0; i < path.size(); ++i) {
      const size_t v = path[i];
      const Vertex& vx = g.vertices[v];
      const Candidates& c = s.vertex[v];
      M[i].assign(c.outs.size(), Cost::infinite());
      best[i].assign(c.outs.size(), -1);
      from[i].assign(c.d.size(), -1);
      std::set<int> labelled_consumers;
      for (int w : vx.consumers)
        if (labelled[static_cast<size_t>(w)]) labelled_consumers.insert(w);
      for (size_t j = 0; j < c.d.size(); ++j) {
        Cost x = c.local[j];
        for (size_t k = 0; k < vx.inputs.size(); ++k) {
          const int u = vx.inputs[k].producer;
          const size_t to = static_cast<size_t>(c.in_of[k][j]);
          if (i > 0 && u == static_cast<int>(path[i - 1])) continue;  // below, with the path's DP
          if (u >= 0 && labelled[static_cast<size_t>(u)]) {
            const size_t o = static_cast<size_t>(s.vertex[static_cast<size_t>(u)].out_of[static_cast<size_t>(chosen[static_cast<size_t>(u)])]);
            x += Cost::moving(c.repart[k][o][to]);
          } else if (u < 0 && !c.repart[k].empty()) {
            x += Cost::moving(c.repart[k][0][to]);  // boundary on a fixed grid
          }  // an unlabelled producer off the path: ignored (§8.4)
        }
        if (i > 0) {
          const size_t u = path[i - 1];
          Cost least = Cost::infinite();
          for (size_t o = 0; o < M[i - 1].size(); ++o) {
            Cost y = M[i - 1][o];
            for (size_t k = 0; k < vx.inputs.size(); ++k)
              if (vx.inputs[k].producer == static_cast<int>(u)) y += Cost::moving(c.repart[k][o][static_cast<size_t>(c.in_of[k][j])]);
            if (y < least) {
              least = y;
              from[i][j] = static_cast<int>(o);
            }
          }
          x += least;
        }
        // Consumers labelled by earlier paths read this output on a known grid.
        for (int w : labelled_consumers) {
          const Vertex& wx = g.vertices[static_cast<size_t>(w)];
          const Candidates& wc = s.vertex[static_cast<size_t>(w)];
          const size_t wj = static_cast<size_t>(chosen[static_cast<size_t>(w)]);
          for (size_t k = 0; k < wx.inputs.size(); ++k)
            if (wx.inputs[k].producer == static_cast<int>(v))
              x += Cost::moving(wc.repart[k][static_cast<size_t>(c.out_of[j])][static_cast<size_t>(wc.in_of[k][wj])]);
        }
        const size_t o = static_cast<size_t>(c.out_of[j]);
        if (x < M[i][o]) {
          M[i][o] = x;
          best[i][o] = static_cast<int>(j);
        }
      }
    }
    // The smallest M at the path's end, then back along the path (§8.4).
    size_t o = 0;
    for (size_t q = 1; q < M.back().size(); ++q)
      if (M.back()[q] < M.back()[o]) o = q;
    for (size_t i = path.size(); i-- > 0;) {
      const int j = best[i][o];
      chosen[path[i]] = j;
      labelled[path[i]] = true;
      --left;
      if (i > 0) o = static_cast<size_t>(from[i][static_cast<size_t>(j)]);
    }
  }
  std::vector<Partitioning> d(n);
  for (size_t v = 0; v < n; ++v) d[v] = s.vertex[v].d[static_cast<size_t>(chosen[v])];
  return costed(g, p, Method::Linearised, std::move(d));
}

}  // namespace tra::decomp
