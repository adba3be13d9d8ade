#include "tra/decomp/planner.hpp"

#include "tra/decomp/search_space.hpp"

namespace tra::decomp {
namespace {

// Vertices whose output two or more operands read: the DP of §8.3 cannot
// describe them by one table (§8.4), so their output grid is fixed up front.
std::vector<bool> shared_vertices(const Graph& g) {
  std::vector<bool> shared;
  for (const auto& v : g.vertices) shared.push_back(v.consumers.size() >= 2);
  return shared;
}

// The dynamic program of §8.3 with the output grid of every shared vertex
// fixed (fixed[v] >= 0): its consumers then read a known grid, and its own
// subgraph's cost M[v, fixed[v]] is counted once, on its own.
class TreeDp {
 public:
  TreeDp(const SearchSpace& s, const std::vector<bool>& shared) : s_(s), shared_(shared) {
    const size_t n = s.vertex.size();
    M_.resize(n);
    best_.resize(n);
    from_.resize(n);
  }

  // The lowest cost with the shared vertices on the given output grids.
  Cost run(const std::vector<int>& fixed) {
    const Graph& g = s_.graph;
    for (size_t v = 0; v < g.vertices.size(); ++v) {
      const Vertex& vx = g.vertices[v];
      const Candidates& c = s_.vertex[v];
      // in_cost[k][grid]: the cheapest way to have input k on that grid.
      std::vector<std::vector<Cost>> in_cost(vx.inputs.size());
      from_[v].assign(vx.inputs.size(), {});
      for (size_t k = 0; k < vx.inputs.size(); ++k) {
        const int u = vx.inputs[k].producer;
        const size_t grids = c.ins[k].size();
        in_cost[k].assign(grids, Cost{});
        from_[v][k].assign(grids, 0);
        for (size_t to = 0; to < grids; ++to) {
          if (u >= 0 && shared_[static_cast<size_t>(u)]) {
            const int o = fixed[static_cast<size_t>(u)];
            in_cost[k][to] = Cost::moving(c.repart[k][static_cast<size_t>(o)][to]);
            from_[v][k][to] = o;
          } else if (u >= 0) {
            Cost least = Cost::infinite();
            const auto& Mu = M_[static_cast<size_t>(u)];
            for (size_t o = 0; o < Mu.size(); ++o) {
              const Cost x = Mu[o] + Cost::moving(c.repart[k][o][to]);
              if (x < least) {
                least = x;
                from_[v][k][to] = static_cast<int>(o);
              }
            }
            in_cost[k][to] = least;
          } else if (!c.repart[k].empty()) {
            in_cost[k][to] = Cost::moving(c.repart[k][0][to]);  // boundary on a fixed grid
          }
        }
      }
      M_[v].assign(c.outs.size(), Cost::infinite());
      best_[v].assign(c.outs.size(), -1);
      for (size_t i = 0; i < c.d.size(); ++i) {
        const int o = c.out_of[i];
        if (fixed[v] >= 0 && o != fixed[v]) continue;
        Cost x = c.local[i];
        for (size_t k = 0; k < vx.inputs.size(); ++k) x += in_cost[k][static_cast<size_t>(c.in_of[k][i])];
        if (x < M_[v][static_cast<size_t>(o)]) {
          M_[v][static_cast<size_t>(o)] = x;
          best_[v][static_cast<size_t>(o)] = static_cast<int>(i);
        }
      }
    }
    Cost total;
    for (size_t v = 0; v < g.vertices.size(); ++v) {
      if (shared_[v]) total += M_[v][static_cast<size_t>(fixed[v])];
      else if (g.vertices[v].consumers.empty()) total += M_[v][static_cast<size_t>(argmin(v))];
    }
    return total;
  }

  // Backtracking (§8.3): from every sink's best entry and every shared
  // vertex's fixed one, each vertex takes the d that produced the M entry its
  // consumer used.
  std::vector<Partitioning> labeling(const std::vector<int>& fixed) const {
    const Graph& g = s_.graph;
    std::vector<Partitioning> d(g.vertices.size());
    for (size_t v = 0; v < g.vertices.size(); ++v) {
      if (shared_[v]) descend(v, fixed[v], d);
      else if (g.vertices[v].consumers.empty()) descend(v, argmin(v), d);
    }
    return d;
  }

 private:
  int argmin(size_t v) const {
    int best = 0;
    for (size_t o = 1; o < M_[v].size(); ++o)
      if (M_[v][o] < M_[v][static_cast<size_t>(best)]) best = static_cast<int>(o);
    return best;
  }

  void descend(size_t v, int o, std::vector<Partitioning>& d) const {
    const Candidates& c = s_.vertex[v];
    const int i = best_[v][static_cast<size_t>(o)];
    d[v] = c.d[static_cast<size_t>(i)];
    const Vertex& vx = s_.graph.vertices[v];
    for (size_t k = 0; k < vx.inputs.size(); ++k) {
      const int u = vx.inputs[k].producer;
      if (u < 0 || shared_[static_cast<size_t>(u)]) continue;
      descend(static_cast<size_t>(u), from_[v][k][static_cast<size_t>(c.in_of[k][static_cast<size_t>(i)])], d);
    }
  }

  const SearchSpace& s_;
  const std::vector<bool>& shared_;
  std::vector<std::vector<Cost>> M_;  // M[v][output grid]
  std::vector<std::vector<int>> best_;  // candidate behind M[v][o]
  std::vector<std::vector<std::vector<int>>> from_;  // [v][input][grid] -> producer's output grid used
};

// Combinations of output grids of the shared vertices.
double combinations(const SearchSpace& s, const std::vector<bool>& shared) {
  double n = 1;
  for (size_t v = 0; v < shared.size(); ++v)
    if (shared[v]) n *= static_cast<double>(s.vertex[v].outs.size());
  return n;
}

Plan exact(const Graph& g, const SearchSpace& s, const std::vector<bool>& shared) {
  TreeDp dp(s, shared);
  std::vector<int> fixed(g.vertices.size(), -1);
  std::vector<size_t> cut;
  for (size_t v = 0; v < shared.size(); ++v)
    if (shared[v]) {
      cut.push_back(v);
      fixed[v] = 0;
    }
  Cost best = Cost::infinite();
  std::vector<Partitioning> d;
  for (;;) {
    const Cost total = dp.run(fixed);
    if (total < best) {
      best = total;
      d = dp.labeling(fixed);
    }
    // Next combination (an odometer over the shared vertices' output grids).
    size_t i = 0;
    for (; i < cut.size(); ++i) {
      if (++fixed[cut[i]] < static_cast<int>(s.vertex[cut[i]].outs.size())) break;
      fixed[cut[i]] = 0;
    }
    if (i == cut.size()) break;
  }
  return costed(g, s.p, cut.empty() ? Method::Tree : Method::ExactDag, std::move(d));
}

}  // namespace

const char* method_name(Method m) {
  switch (m) {
    case Method::Tree:
      return "exact dynamic program (no shared intermediate, §8.2-8.3)";
    case Method::ExactDag:
      return "exact dynamic program, conditioned on the grids of shared intermediates";
    case Method::Linearised:
      return "dynamic program along longest paths (§8.4, approximate)";
    case Method::BruteForce:
      return "every labeling";
    case Method::Rule:
      return "a fixed rule per statement, no search";
  }
  return "?";
}

Plan costed(const Graph& g, Index p, Method m, std::vector<Partitioning> d) {
  Plan plan;
  plan.p = p;
  plan.method = m;
  plan.d = std::move(d);
  plan.cost = evaluate(g, plan.d);
  plan.total = total_cost(plan.cost);
  return plan;
}

Plan plan_exact(const Graph& g, Index p) {
  const SearchSpace s(g, p);
  return exact(g, s, shared_vertices(g));
}

Plan plan_eindecomp(const Graph& g, Index p, std::size_t exact_dag_limit) {
  const SearchSpace s(g, p);
  const auto shared = shared_vertices(g);
  if (combinations(s, shared) <= static_cast<double>(exact_dag_limit)) return exact(g, s, shared);
  return plan_linearised(g, p);
}

}  // namespace tra::decomp
