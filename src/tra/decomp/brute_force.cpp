// Every labeling of the EinGraph, costed by the search space's tables; for
// checking the dynamic program on small graphs.
#include <limits>

#include "tra/decomp/planner.hpp"
#include "tra/decomp/search_space.hpp"

namespace tra::decomp {

Plan plan_brute_force(const Graph& g, Index p) {
  const SearchSpace s(g, p);
  const size_t n = g.vertices.size();
  std::vector<size_t> pick(n, 0), best_pick(n, 0);
  Cost best = Cost::infinite();
  for (;;) {
    Cost total;
    for (size_t v = 0; v < n; ++v) {
      const Candidates& c = s.vertex[v];
      const size_t j = pick[v];
      total += c.local[j];
      const auto& inputs = g.vertices[v].inputs;
      for (size_t k = 0; k < inputs.size(); ++k) {
        const size_t to = static_cast<size_t>(c.in_of[k][j]);
        const int u = inputs[k].producer;
        if (u >= 0)
          total += Cost::moving(c.repart[k][static_cast<size_t>(s.vertex[static_cast<size_t>(u)].out_of[pick[static_cast<size_t>(u)]])][to]);
        else if (!c.repart[k].empty()) total += Cost::moving(c.repart[k][0][to]);
      }
    }
    if (total < best) {
      best = total;
      best_pick = pick;
    }
    size_t v = 0;
    for (; v < n; ++v) {
      if (++pick[v] < s.vertex[v].d.size()) break;
      pick[v] = 0;
    }
    if (v == n) break;
  }
  std::vector<Partitioning> d(n);
  for (size_t v = 0; v < n; ++v) d[v] = s.vertex[v].d[best_pick[v]];
  return costed(g, p, Method::BruteForce, std::move(d));
}

}  // namespace tra::decomp
