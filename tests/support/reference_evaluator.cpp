#include "support/reference_evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "tra/io/generators.hpp"

namespace tra::testing {

Dense evaluate(const einsum::EinSum& st, const std::map<std::string, Dense>& tensors) {
  const einsum::Labels all = st.all_labels();
  std::map<std::string, Index> bound;
  for (const auto& in : st.inputs) {
    const Dense& t = tensors.at(in.name);
    for (size_t i = 0; i < in.labels.size(); ++i) bound[in.labels[i]] = t.shape[i];
  }
  Dense out;
  for (const auto& l : st.output.labels) out.shape.push_back(bound.at(l));
  const double init = st.agg == einsum::AggOp::Max ? -HUGE_VAL : st.agg == einsum::AggOp::Min ? HUGE_VAL : 0.0;
  out.v.assign(static_cast<size_t>(volume(out.shape)), init);
  Shape all_bounds;
  for (const auto& l : all) all_bounds.push_back(bound.at(l));
  auto index_of = [&](const einsum::Labels& ls, const Key& assignment) {
    Key idx;
    for (const auto& l : ls) idx.push_back(assignment[static_cast<size_t>(std::find(all.begin(), all.end(), l) - all.begin())]);
    return idx;
  };
  for_each_key(all_bounds, [&](const Key& a) {
    const double x = tensors.at(st.inputs[0].name).at(index_of(st.inputs[0].labels, a));
    const double y = st.inputs.size() > 1 ? tensors.at(st.inputs[1].name).at(index_of(st.inputs[1].labels, a)) : 0.0;
    const double val = st.join.eval(x, y);
    double& o = out.v[static_cast<size_t>(linearize(index_of(st.output.labels, a), out.shape))];
    switch (st.agg) {
      case einsum::AggOp::None:
        o = val;
        break;
      case einsum::AggOp::Sum:
        o += val;
        break;
      case einsum::AggOp::Max:
        o = std::max(o, val);
        break;
      case einsum::AggOp::Min:
        o = std::min(o, val);
        break;
    }
  });
  return out;
}

std::map<std::string, Dense> evaluate_workflow(const model::Workflow& wf) {
  std::map<std::string, Dense> t;
  for (const auto& decl : wf.tensors) {
    const auto* g = std::get_if<model::Generator>(&decl.source);
    if (!g) throw std::runtime_error("reference evaluator: only generated inputs");
    Chunk c = io::generate_chunk(*g, decl.shape, decl.shape, Key(decl.shape.size(), 0));
    t[decl.name] = Dense{decl.shape, c.to_host()};
  }
  for (const auto& s : wf.graph) {
    const auto* e = std::get_if<einsum::EinSum>(&s);
    if (!e) throw std::runtime_error("reference evaluator: only EinSum statements");
    t[e->output.name] = evaluate(*e, t);
  }
  return t;
}

Dense assemble(const std::vector<Tuple>& tuples, const Shape& frontier, const Shape& chunk_shape) {
  Dense d;
  for (size_t i = 0; i < frontier.size(); ++i) d.shape.push_back(frontier[i] * chunk_shape[i]);
  d.v.assign(static_cast<size_t>(volume(d.shape)), std::nan(""));
  for (const Tuple& t : tuples) {
    const std::vector<double> host = t.chunk.to_host();
    size_t p = 0;
    for_each_key(chunk_shape, [&](const Key& local) {
      Key g(local.size());
      for (size_t i = 0; i < g.size(); ++i) g[i] = t.key[i] * chunk_shape[i] + local[i];
      d.v[static_cast<size_t>(linearize(g, d.shape))] = host[p++];
    });
  }
  return d;
}

double max_abs_diff(const Dense& a, const Dense& b) {
  if (a.shape != b.shape) throw std::runtime_error("shape mismatch " + shape_string(a.shape) + " vs " + shape_string(b.shape));
  double m = 0;
  for (size_t i = 0; i < a.v.size(); ++i) {
    const double d = std::fabs(a.v[i] - b.v[i]);
    if (std::isnan(d)) return HUGE_VAL;
    m = std::max(m, d);
  }
  return m;
}

Dense random_floats(const Shape& shape, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Dense d{shape, std::vector<double>(static_cast<size_t>(volume(shape)))};
  for (double& v : d.v) v = static_cast<float>(u(gen));
  return d;
}

}  // namespace tra::testing
