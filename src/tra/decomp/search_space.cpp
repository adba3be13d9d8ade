#include "tra/decomp/search_space.hpp"

#include <algorithm>

#include "tra/decomp/viable.hpp"

namespace tra::decomp {
namespace {

int index_of(std::vector<Shape>& list, const Shape& s) {
  auto it = std::find(list.begin(), list.end(), s);
  if (it != list.end()) return static_cast<int>(it - list.begin());
  list.push_back(s);
  return static_cast<int>(list.size()) - 1;
}

}  // namespace

SearchSpace::SearchSpace(const Graph& g, Index p_) : graph(g), p(p_) {
  vertex.resize(g.vertices.size());
  for (size_t v = 0; v < g.vertices.size(); ++v) {
    const Vertex& vx = g.vertices[v];
    Candidates& c = vertex[v];
    c.d = vx.pinned ? std::vector<Partitioning>{*vx.pinned} : viable_at_most(vx, p);
    c.ins.resize(vx.inputs.size());
    c.in_of.resize(vx.inputs.size());
    for (const auto& d : c.d) {
      const double agg = cost_agg(vx, d);
      c.local.push_back({cost_join(vx, d) + agg, agg});
      c.out_of.push_back(index_of(c.outs, vx.output_grid(d)));
      for (size_t k = 0; k < vx.inputs.size(); ++k) c.in_of[k].push_back(index_of(c.ins[k], vx.input_grid(d, k)));
    }
    c.repart.resize(vx.inputs.size());
    for (size_t k = 0; k < vx.inputs.size(); ++k) {
      const Operand& in = vx.inputs[k];
      std::vector<Shape> from;
      if (in.producer >= 0) from = vertex[static_cast<size_t>(in.producer)].outs;
      else if (in.fixed_grid) from = {*in.fixed_grid};
      for (const Shape& f : from) {
        std::vector<double> row;
        for (const Shape& to : c.ins[k]) row.push_back(cost_repart(f, to, in.shape));
        c.repart[k].push_back(std::move(row));
      }
    }
  }
}

std::vector<StatementCost> evaluate(const Graph& g, const std::vector<Partitioning>& d) {
  std::vector<StatementCost> out(g.vertices.size());
  for (size_t v = 0; v < g.vertices.size(); ++v) {
    const Vertex& vx = g.vertices[v];
    out[v].join = cost_join(vx, d[v]);
    out[v].agg = cost_agg(vx, d[v]);
    for (size_t k = 0; k < vx.inputs.size(); ++k) {
      const Operand& in = vx.inputs[k];
      double c = 0;
      if (in.producer >= 0) {
        const size_t u = static_cast<size_t>(in.producer);
        c = cost_repart(g.vertices[u].output_grid(d[u]), vx.input_grid(d[v], k), in.shape);
      } else if (in.fixed_grid) {
        c = cost_repart(*in.fixed_grid, vx.input_grid(d[v], k), in.shape);
      }
      out[v].repart.emplace_back(in.tensor, c);
    }
  }
  return out;
}

double total_cost(const std::vector<StatementCost>& costs) {
  double t = 0;
  for (const auto& c : costs) t += c.total();
  return t;
}

}  // namespace tra::decomp
