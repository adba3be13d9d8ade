#include "tra/decomp/graph.hpp"

#include <algorithm>
#include <set>

namespace tra::decomp {
namespace {

int position(const Labels& ls, const Label& l) {
  auto it = std::find(ls.begin(), ls.end(), l);
  return it == ls.end() ? -1 : static_cast<int>(it - ls.begin());
}

// The bound of every label of `e`, or nothing when the inputs disagree on an
// extent or are written with the wrong number of labels (lowering reports it).
std::optional<std::map<Label, Index>> bounds_of(const einsum::EinSum& e, const std::vector<Shape>& shapes) {
  std::map<Label, Index> bound;
  for (size_t k = 0; k < e.inputs.size(); ++k) {
    const Labels& ls = e.inputs[k].labels;
    if (ls.size() != shapes[k].size()) return std::nullopt;
    for (size_t i = 0; i < ls.size(); ++i) {
      auto [it, fresh] = bound.emplace(ls[i], shapes[k][i]);
      if (!fresh && it->second != shapes[k][i]) return std::nullopt;
    }
  }
  double combinations = 1;
  for (const auto& l : e.all_labels()) {
    if (!bound.count(l)) return std::nullopt;
    combinations *= static_cast<double>(bound.at(l));
  }
  if (combinations > 4611686018427387904.0) return std::nullopt;  // past 2^62: 64-bit costs would wrap (lowering says so)
  return bound;
}

// The dimension of an operand that holds the batch: a `batch:` tensor's, or
// its producer's output dimension holding the producer's batch label.
int batch_dim_of(const Graph& g, const model::Workflow& wf, const Operand& o) {
  if (o.producer >= 0) return g.vertices[static_cast<size_t>(o.producer)].batch_dim();
  const model::TensorDecl* t = wf.find_tensor(o.tensor);
  return t && t->batch ? t->batch->dim : -1;
}

}  // namespace

int Graph::find(const std::string& name) const {
  for (size_t v = 0; v < vertices.size(); ++v)
    if (vertices[v].name == name) return static_cast<int>(v);
  return -1;
}

int Vertex::batch_dim() const {
  auto it = std::find(output_pos.begin(), output_pos.end(), batch_label);
  return batch_label < 0 || it == output_pos.end() ? -1 : static_cast<int>(it - output_pos.begin());
}

Vertex make_vertex(const einsum::EinSum& e, const std::map<Label, Index>& bound) {
  Vertex v;
  v.name = e.output.name;
  v.loc = e.loc;
  v.labels = e.all_labels();
  for (const auto& l : v.labels) v.bound.push_back(bound.at(l));
  for (const auto& l : e.output.labels) v.output_pos.push_back(position(v.labels, l));
  for (const auto& in : e.inputs) {
    Operand o;
    o.tensor = in.name;
    for (const auto& l : in.labels) {
      o.label_pos.push_back(position(v.labels, l));
      o.shape.push_back(bound.at(l));
    }
    v.inputs.push_back(std::move(o));
  }
  return v;
}

Graph build_graph(const model::Workflow& wf, const std::map<std::string, Boundary>& given, size_t first) {
  Graph g;
  std::map<std::string, int> vertex_of;
  std::set<std::string> unsized;  // TRA outputs and left-out statements: their shapes are unknown here
  std::set<std::string> defined;

  auto boundary = [&](const std::string& name) -> std::optional<Boundary> {
    auto it = given.find(name);
    if (it != given.end()) return it->second;
    if (const model::TensorDecl* t = wf.find_tensor(name)) {
      Boundary b{t->shape, std::nullopt};
      if (t->chunk) {
        Shape grid;
        for (size_t i = 0; i < t->shape.size(); ++i) grid.push_back(t->shape[i] / (*t->chunk)[i]);
        b.grid = grid;
      }
      return b;
    }
    return std::nullopt;
  };

  for (size_t i = first; i < wf.graph.size(); ++i) {
    const model::Statement& s = wf.graph[i];
    const std::string& name = model::statement_output(s);
    const bool redefines = defined.count(name) || given.count(name) || wf.find_tensor(name);
    defined.insert(name);
    const auto* e = std::get_if<einsum::EinSum>(&s);
    if (!e) {
      unsized.insert(name);
      continue;
    }
    auto leave_out = [&] {
      unsized.insert(name);
      g.left_out.push_back(name);
    };
    if (redefines) {
      leave_out();
      continue;
    }
    std::vector<Shape> shapes;
    std::vector<int> producers;
    std::vector<std::optional<Shape>> grids;
    bool sized = true;
    for (const auto& in : e->inputs) {
      auto v = vertex_of.find(in.name);
      if (v != vertex_of.end()) {
        shapes.push_back(g.vertices[static_cast<size_t>(v->second)].output_shape());
        producers.push_back(v->second);
        grids.emplace_back();
        continue;
      }
      auto b = unsized.count(in.name) ? std::nullopt : boundary(in.name);
      if (!b) {
        sized = false;
        break;
      }
      shapes.push_back(b->shape);
      producers.push_back(-1);
      grids.push_back(b->grid);
    }
    const auto bound = sized ? bounds_of(*e, shapes) : std::nullopt;
    if (!bound) {
      leave_out();
      continue;
    }
    Vertex vx = make_vertex(*e, *bound);
    vx.statement = static_cast<int>(i);
    const int id = static_cast<int>(g.vertices.size());
    for (size_t k = 0; k < vx.inputs.size(); ++k) {
      vx.inputs[k].producer = producers[k];
      vx.inputs[k].fixed_grid = grids[k];
      if (producers[k] >= 0) g.vertices[static_cast<size_t>(producers[k])].consumers.push_back(id);
      const int dim = batch_dim_of(g, wf, vx.inputs[k]);
      if (dim >= 0) {
        const int at = vx.inputs[k].label_pos[static_cast<size_t>(dim)];
        if (vx.batch_label < 0 || at < vx.batch_label) vx.batch_label = at;
      }
    }
    auto manual = wf.run.partitioning.find(name);
    if (manual != wf.run.partitioning.end()) {
      Partitioning d(vx.labels.size(), 1);
      for (const auto& [label, parts] : manual->second) {
        const int at = position(vx.labels, label);
        if (at >= 0) d[static_cast<size_t>(at)] = parts;  // a label the statement lacks: lowering reports it
      }
      vx.pinned = d;
    }
    vertex_of[name] = id;
    g.vertices.push_back(std::move(vx));
  }
  return g;
}

}  // namespace tra::decomp
