#include "tra/logical/lower.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>

#include "tra/decomp/partitioners.hpp"
#include "tra/einsum/parser.hpp"

namespace tra::logical {
namespace {

using einsum::EinSum;
using einsum::Label;
using einsum::Labels;

std::vector<Key> all_keys(const Shape& frontier) {
  std::vector<Key> keys;
  keys.reserve(static_cast<size_t>(volume(frontier)));
  for_each_key(frontier, [&](const Key& k) { keys.push_back(k); });
  return keys;
}

Shape bounding_frontier(const std::vector<Key>& keys, int arity) {
  Shape f(static_cast<size_t>(arity), 0);
  for (const Key& k : keys)
    for (int i = 0; i < arity; ++i) f[i] = std::max(f[i], k[i] + 1);
  return f;
}

// The largest divisor of n that is at most p.
Index largest_divisor_upto(Index n, Index p) {
  for (Index q = std::min(n, p); q > 1; --q)
    if (n % q == 0) return q;
  return 1;
}

int position(const Labels& ls, const Label& l) { return static_cast<int>(std::find(ls.begin(), ls.end(), l) - ls.begin()); }
bool has(const Labels& ls, const Label& l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); }

class Lowerer {
 public:
  Lowerer(const model::Workflow& wf, int nranks, model::RunOptions::Partitioner partitioner) : wf_(wf), nranks_(nranks) {
    for (const auto& s : wf.graph) later_outputs_.insert(model::statement_output(s));
    partitioner_.kind = partitioner;
    partitioner_.nranks = nranks;
    partitioner_.overdecomposition = wf.run.overdecomposition;
    // `default: rows` keeps its old meaning under the manual partitioner; manual
    // without `default` leaves unnamed statements whole.
    partitioner_.manual_rows = wf.run.default_given && wf.run.default_partitioning == model::RunOptions::DefaultPartitioning::Rows;
    auto& r = out_.decomposition;
    r.partitioner = decomp::partitioner_name(partitioner);
    r.nranks = nranks;
    r.overdecomposition = wf.run.overdecomposition;
    r.kernel_calls = decomp::kernel_calls_wanted(nranks, wf.run.overdecomposition);
  }

  Lowering run() {
    for (size_t i = 0; i < wf_.graph.size(); ++i) {
      const model::Statement& s = wf_.graph[i];
      const std::string& out = model::statement_output(s);
      later_outputs_.erase(out);
      if (wf_.find_tensor(out)) throw UserError(model::statement_loc(s), "statement redefines '" + out + "', which is declared as an input tensor");
      if (out_.tensor_node.count(out))
        throw UserError(model::statement_loc(s), "'" + out + "' is computed twice; give each statement its own output name");
      if (auto e = std::get_if<EinSum>(&s)) lower_einsum(*e, i);
      else lower_tra(std::get<model::TraStatement>(s));
    }
    for (const auto& [name, _] : wf_.run.partitioning)
      if (!out_.d.count(name))
        throw UserError(wf_.run.partitioning_loc.at(name), "partitioning names '" + name + "', which no EinSum statement computes");
    // Inputs that are only written out (never consumed) still need a node.
    for (const auto& o : wf_.outputs) {
      if (out_.tensor_node.count(o.tensor)) continue;
      const model::TensorDecl* t = wf_.find_tensor(o.tensor);
      if (!t) throw UserError(o.loc, "output names '" + o.tensor + "', which is neither a declared tensor nor computed by a statement");
      if (std::holds_alternative<model::SparseSource>(t->source))
        throw UserError(o.loc, "output names '" + o.tensor + "', a sparse tensor: outputs are dense tensors (its data is its coordinate lists)");
      Shape grid(t->shape.size(), 1);
      if (!grid.empty()) grid[0] = largest_divisor_upto(t->shape[0], nranks_);
      input_node(*t, grid);
    }
    return std::move(out_);
  }

 private:
  int add(TraNode n) {
    n.type.dtype = wf_.run.dtype;  // every relation of the run holds its element type
    out_.plan.nodes.push_back(std::move(n));
    return static_cast<int>(out_.plan.nodes.size()) - 1;
  }
  const TraNode& node(int i) const { return out_.plan.nodes[static_cast<size_t>(i)]; }

  // The node holding a tensor, reading it from its source the first time. A
  // declared chunk shape wins; otherwise the first consumer's grid is used.
  int input_node(const model::TensorDecl& t, const Shape& wanted_grid) {
    auto it = out_.tensor_node.find(t.name);
    if (it != out_.tensor_node.end()) return it->second;
    TraNode n;
    n.kind = TraNode::Kind::Input;
    n.tensor = t.name;
    n.statement = "input " + t.name;
    n.source = t;
    Shape grid = wanted_grid;
    if (t.chunk)
      for (size_t i = 0; i < grid.size(); ++i) grid[i] = t.shape[i] / (*t.chunk)[i];
    n.type.frontier = grid;
    for (size_t i = 0; i < grid.size(); ++i) n.type.chunk_shape.push_back(t.shape[i] / grid[i]);
    n.keys = all_keys(grid);
    const int id = add(std::move(n));
    out_.tensor_node[t.name] = id;
    return id;
  }

  [[noreturn]] void unknown(const std::string& name, const SourceLoc& where) const {
    if (later_outputs_.count(name))
      throw UserError(where, "'" + name + "' is used before the statement that computes it (statements run in order; a cycle cannot be computed)");
    throw UserError(where, "unknown tensor '" + name + "': declare it under tensors or compute it in an earlier statement");
  }

  // Shape of a tensor available now (declared, or the standard-form output of an earlier statement).
  Shape tensor_shape(const std::string& name, const SourceLoc& where) const {
    if (const model::TensorDecl* t = wf_.find_tensor(name)) return t->shape;
    auto it = out_.tensor_node.find(name);
    if (it == out_.tensor_node.end()) unknown(name, where);
    const RelType& ty = node(it->second).type;
    if (node(it->second).keys.size() != static_cast<size_t>(ty.tuples()))
      throw UserError(where, "'" + name + "' is a tensor relation with holes (" + std::to_string(node(it->second).keys.size()) + " of " +
                                 std::to_string(ty.tuples()) + " tuples below its frontier " + shape_string(ty.frontier) +
                                 "); an EinSum needs a whole tensor (rekey it to a continuous key range first)");
    if (!ty.standard())
      throw UserError(where, "'" + name + "' is a tensor relation with " + std::to_string(ty.key_arity()) + " key dimensions but chunks of rank " +
                                 std::to_string(ty.chunk_shape.size()) +
                                 "; an EinSum needs one key dimension per array dimension (concat or rekey it first)");
    return ty.tensor_shape();
  }

  std::map<Label, Index> bounds_of(const EinSum& e) const {
    std::map<Label, Index> bound;
    std::map<Label, std::string> seen_in;
    for (const auto& in : e.inputs) {
      const Shape s = tensor_shape(in.name, in.loc);
      if (s.size() != in.labels.size())
        throw UserError(in.loc, "'" + in.name + "' has rank " + std::to_string(s.size()) + " (shape " + shape_string(s) + ") but is written with " +
                                    std::to_string(in.labels.size()) + " labels");
      for (size_t i = 0; i < s.size(); ++i) {
        const Label& l = in.labels[i];
        auto it = bound.find(l);
        if (it != bound.end() && it->second != s[i])
          throw UserError(in.loc, "label '" + l + "' has extent " + std::to_string(it->second) + " in " + seen_in[l] + " but " +
                                      std::to_string(s[i]) + " in " + in.name);
        bound[l] = s[i];
        seen_in.emplace(l, in.name);
      }
    }
    // Sizes and flop counts are 64-bit integers: an output past 2^50
    // elements (8 PiB) or an iteration space past 2^62 would wrap them.
    double output = 1, all = 1;
    for (const auto& [l, b] : bound) {
      all *= static_cast<double>(b);
      if (std::find(e.output.labels.begin(), e.output.labels.end(), l) != e.output.labels.end()) output *= static_cast<double>(b);
    }
    if (output > 1125899906842624.0)
      throw UserError(e.loc, "'" + e.output.name + "' would have more than 2^50 elements; no machine holds such a tensor");
    if (all > 4611686018427387904.0)
      throw UserError(e.loc, "the statement computing '" + e.output.name + "' runs over more than 2^62 label combinations; no machine computes that");
    return bound;
  }

  // The deck's d for a statement named under run: partitioning:, else the
  // partitioner's (planned, from statement `index` on, when first needed).
  std::map<Label, Index> choose_d(const EinSum& e, const std::map<Label, Index>& bound, size_t index) {
    std::map<Label, Index> d;
    for (const auto& [l, _] : bound) d[l] = 1;
    auto manual = wf_.run.partitioning.find(e.output.name);
    if (manual != wf_.run.partitioning.end()) {
      const SourceLoc& where = wf_.run.partitioning_loc.at(e.output.name);
      for (const auto& [l, parts] : manual->second) {
        if (!bound.count(l))
          throw UserError(where, "partitioning of '" + e.output.name + "' names label '" + l + "', which its statement does not use");
        if (bound.at(l) % parts != 0)
          throw UserError(where, "partitioning of '" + e.output.name + "' splits label '" + l + "' (extent " + std::to_string(bound.at(l)) +
                                     ") into " + std::to_string(parts) + " parts, which does not divide it");
        d[l] = parts;
      }
      out_.decomposition.from_deck.insert(e.output.name);
      return d;
    }
    if (!planned_.count(e.output.name)) plan_from(index);
    auto it = planned_.find(e.output.name);
    if (it != planned_.end())
      for (const auto& [l, parts] : it->second)
        if (d.count(l)) d[l] = parts;
    return d;
  }

  // Runs the partitioner over the EinSum statements from `first` on. Tensors
  // lowered so far are boundaries on the grids they are held on.
  void plan_from(size_t first) {
    std::map<std::string, decomp::Boundary> given;
    for (const auto& [name, id] : out_.tensor_node) {
      const TraNode& n = node(id);
      if (!n.type.standard() || n.keys.size() != static_cast<size_t>(n.type.tuples())) continue;  // no EinSum may read it
      given[name] = decomp::Boundary{n.type.tensor_shape(), n.type.frontier};
    }
    const decomp::Graph g = decomp::build_graph(wf_, given, first);
    const decomp::Plan plan = decomp::decompose(g, partitioner_);
    for (size_t v = 0; v < g.vertices.size(); ++v) {
      auto& d = planned_[g.vertices[v].name];
      for (size_t l = 0; l < g.vertices[v].labels.size(); ++l) d[g.vertices[v].labels[l]] = plan.d[v][l];
    }
    const char* how =
        partitioner_.kind == model::RunOptions::Partitioner::EinDecomp ? decomp::method_name(plan.method) : decomp::method_name(decomp::Method::Rule);
    out_.decomposition.methods.push_back("from statement " + model::statement_output(wf_.graph[first]) + " on: " + how);
  }

  // The §7 terms of a statement as it is lowered: each input re-partitioned
  // from the grid it is held on (a declared tensor read for the first time is
  // scanned on the grid wanted, free unless the deck fixed its chunks).
  void record_cost(const EinSum& e, const std::map<Label, Index>& bound, const std::map<Label, Index>& d) {
    const decomp::Vertex v = decomp::make_vertex(e, bound);
    decomp::Partitioning dv;
    for (const auto& l : v.labels) dv.push_back(d.at(l));
    decomp::StatementCost c;
    c.join = decomp::cost_join(v, dv);
    c.agg = decomp::cost_agg(v, dv);
    std::map<std::string, Shape> held;  // grids the inputs are on, as the operands are created in order
    for (size_t k = 0; k < e.inputs.size(); ++k) {
      const std::string& name = e.inputs[k].name;
      const Shape to = v.input_grid(dv, k);
      if (!held.count(name)) held[name] = held_grid(name).value_or(to);
      c.repart.emplace_back(name, decomp::cost_repart(held[name], to, v.inputs[k].shape));
    }
    out_.decomposition.total += c.total();
    out_.decomposition.cost[e.output.name] = std::move(c);
  }

  // The grid tensor `name` is held on before a statement reads it: a computed
  // tensor's, or a deck input's fixed chunks; none for an input read on
  // whatever grid the statement wants.
  std::optional<Shape> held_grid(const std::string& name) const {
    if (auto it = out_.tensor_node.find(name); it != out_.tensor_node.end()) return node(it->second).type.frontier;
    if (const model::TensorDecl* t = wf_.find_tensor(name); t && t->chunk) {
      Shape grid;
      for (size_t i = 0; i < t->shape.size(); ++i) grid.push_back(t->shape[i] / (*t->chunk)[i]);
      return grid;
    }
    return std::nullopt;
  }

  // A statement of one input does not re-chunk its operand along a label it
  // aggregates: where the operand is held split finer there than d says, d
  // takes the operand's parts, the kernel runs on the chunks as they are, and
  // the aggregation combines the partial results. Re-chunking would copy the
  // operand whole into bigger chunks only for the kernel to reduce them (nn's
  // dist = sum_e h after h = proj * diff: 0.18 s of copying against 0.05 s
  // of summing, benchmark size on 2 ranks). The output's grid is unchanged.
  std::map<Label, Index> aggregated_in_parts(const EinSum& e, std::map<Label, Index> d) {
    if (e.inputs.size() != 1) return d;
    const std::optional<Shape> grid = held_grid(e.inputs[0].name);
    const Labels& lx = e.inputs[0].labels;
    if (!grid || grid->size() != lx.size()) return d;
    for (size_t i = 0; i < lx.size(); ++i) {
      const Label& l = lx[i];
      const bool summed = has(e.agg_labels, l) && std::count(lx.begin(), lx.end(), l) == 1;
      if (summed && (*grid)[i] > d.at(l) && (*grid)[i] % d.at(l) == 0) {
        d[l] = (*grid)[i];
        out_.decomposition.aggregated_in_parts[e.output.name].push_back(l);
      }
    }
    return d;
  }

  // A sparse tensor's node on `grid`: read on each grid a statement wants
  // (its blocks cannot be re-chunked as a dense relation's are), never
  // named as the tensor's one node, so that EinDecomp sees no boundary.
  int sparse_node(const model::TensorDecl& t, const Shape& grid) {
    const std::string key = t.name + shape_string(grid);
    if (auto it = sparse_nodes_.find(key); it != sparse_nodes_.end()) return it->second;
    TraNode n;
    n.kind = TraNode::Kind::Input;
    n.tensor = t.name;
    n.statement = "input " + t.name + " (sparse)";
    n.source = t;
    n.type.frontier = grid;
    for (size_t i = 0; i < grid.size(); ++i) n.type.chunk_shape.push_back(t.shape[i] / grid[i]);
    const auto& source = std::get<model::SparseSource>(t.source);
    n.type.stored = static_cast<double>(source.entries) / static_cast<double>(volume(grid));
    if (source.filled)
      if (const FilledByBlock* blocks = source.filled->find(grid)) n.type.filled = std::shared_ptr<const FilledByBlock>(source.filled, blocks);
    n.keys = all_keys(grid);
    return sparse_nodes_[key] = add(std::move(n));
  }

  // Which input of `e` is a sparse tensor (-1: none), and its stored
  // entries per block on the statement's grid; a statement it cannot run
  // in is a located error.
  std::pair<int, double> sparse_input(const EinSum& e, const std::map<Label, Index>& d) const {
    int sparse = -1;
    double per_block = 0;
    for (size_t k = 0; k < e.inputs.size(); ++k) {
      const model::TensorDecl* t = wf_.find_tensor(e.inputs[k].name);
      const auto* s = t ? std::get_if<model::SparseSource>(&t->source) : nullptr;
      if (!s) continue;
      std::string why;
      if (sparse >= 0)
        why = "a sparse tensor can only be multiplied by a dense one, not by a sparse one (" +
              (e.inputs[static_cast<size_t>(sparse)].name == t->name ? "itself" : "'" + e.inputs[static_cast<size_t>(sparse)].name + "'") + ")";
      else kernels::EinSumKernel::sparse_product_fits(e, static_cast<int>(k), &why);
      if (!why.empty()) throw UserError(e.loc, "'" + t->name + "' is sparse: " + why + "; this statement is " + e.str());
      sparse = static_cast<int>(k);
      double blocks = 1;
      for (const auto& l : e.inputs[k].labels) blocks *= static_cast<double>(d.at(l));
      per_block = static_cast<double>(s->entries) / blocks;
    }
    return {sparse, per_block};
  }

  // The node of tensor `name` chunked on `grid`, re-chunking if needed.
  int operand(const einsum::TensorRef& ref, const Shape& grid) {
    int id;
    if (const model::TensorDecl* t = wf_.find_tensor(ref.name); t && std::holds_alternative<model::SparseSource>(t->source))
      return sparse_node(*t, grid);
    if (const model::TensorDecl* t = wf_.find_tensor(ref.name)) id = input_node(*t, grid);
    else id = out_.tensor_node.at(ref.name);
    if (node(id).type.frontier == grid) return id;
    const RelType& from = node(id).type;
    TraNode r;
    r.kind = TraNode::Kind::Retile;
    r.inputs = {id};
    r.tensor = ref.name;
    r.statement = "re-chunk " + ref.name + " from grid " + shape_string(from.frontier) + " to " + shape_string(grid);
    r.from_grid = from.frontier;
    r.type.frontier = grid;
    const Shape full = from.tensor_shape();
    for (size_t i = 0; i < grid.size(); ++i) r.type.chunk_shape.push_back(full[i] / grid[i]);
    r.keys = all_keys(grid);
    return add(std::move(r));
  }

  void lower_einsum(const EinSum& e, size_t index) {
    const auto bound = bounds_of(e);
    const auto d = aggregated_in_parts(e, choose_d(e, bound, index));
    out_.d[e.output.name] = d;
    record_cost(e, bound, d);
    std::map<Label, Index> extent;
    for (const auto& [l, b] : bound) extent[l] = b / d.at(l);
    const auto [sparse, stored_per_block] = sparse_input(e, d);
    auto kernel = std::make_shared<const kernels::EinSumKernel>(e, extent, sparse, stored_per_block);
    auto grid_of = [&](const Labels& ls) {
      Shape g;
      for (const auto& l : ls) g.push_back(d.at(l));
      return g;
    };
    const std::string text = e.str();

    // Join (or, with one input, Transform): the key labels of its output.
    const Labels& lx = e.inputs[0].labels;
    Labels key_labels = lx;
    TraNode j;
    j.statement = text;
    j.einsum = kernel;
    j.inputs.push_back(operand(e.inputs[0], grid_of(lx)));
    if (e.inputs.size() == 2) {
      const Labels& ly = e.inputs[1].labels;
      j.kind = TraNode::Kind::Join;
      j.inputs.push_back(operand(e.inputs[1], grid_of(ly)));
      for (size_t i = 0; i < lx.size(); ++i)
        if (has(ly, lx[i])) {
          j.keys_left.push_back(static_cast<int>(i));
          j.keys_right.push_back(position(ly, lx[i]));
        }
      for (const auto& l : ly)
        if (!has(lx, l)) key_labels.push_back(l);
    } else {
      j.kind = TraNode::Kind::Transform;
    }
    j.type.frontier = grid_of(key_labels);
    j.type.chunk_shape = kernel->z_shape();
    j.keys = all_keys(j.type.frontier);
    // Nothing aggregated and the key already in output order: the join (or
    // transform) is the statement's result; an aggregation over one-tuple
    // groups would only copy it.
    bool identity = e.output.labels.size() == key_labels.size();
    for (size_t i = 0; identity && i < key_labels.size(); ++i) identity = e.output.labels[i] == key_labels[i];
    if (identity) {
      j.tensor = e.output.name;
      out_.tensor_node[e.output.name] = add(std::move(j));
      return;
    }
    const int jid = add(std::move(j));

    TraNode a;
    a.kind = TraNode::Kind::Aggregate;
    a.statement = text;
    a.inputs = {jid};
    a.tensor = e.output.name;
    a.agg = e.agg == einsum::AggOp::None ? einsum::AggOp::Sum : e.agg;  // groups are singletons when nothing is aggregated
    for (const auto& l : e.output.labels) a.group_by.push_back(position(key_labels, l));
    a.type.frontier = grid_of(e.output.labels);
    a.type.chunk_shape = kernel->z_shape();
    a.keys = all_keys(a.type.frontier);
    out_.tensor_node[e.output.name] = add(std::move(a));
  }

  void lower_tra(const model::TraStatement& s) {
    int in;
    if (const model::TensorDecl* t = wf_.find_tensor(s.input); t && std::holds_alternative<model::SparseSource>(t->source))
      throw UserError(s.loc,
                      "'" + s.input + "' is sparse: a TRA statement reads a dense tensor; a sparse one is multiplied by a dense one in an EinSum");
    if (const model::TensorDecl* t = wf_.find_tensor(s.input)) {
      Shape grid(t->shape.size(), 1);
      if (!grid.empty()) grid[0] = largest_divisor_upto(t->shape[0], nranks_);
      in = input_node(*t, grid);
    } else {
      auto it = out_.tensor_node.find(s.input);
      if (it == out_.tensor_node.end()) unknown(s.input, s.loc);
      in = it->second;
    }
    const TraNode& src = node(in);
    const int arity = src.type.key_arity();
    const int rank = static_cast<int>(src.type.chunk_shape.size());
    TraNode n;
    n.inputs = {in};
    n.tensor = s.output;
    n.statement = s.str();
    n.type = src.type;
    switch (s.op) {
      case model::TraStatement::Op::Filter: {
        n.kind = TraNode::Kind::Filter;
        n.key_fn = std::make_shared<const KeyExpr>(KeyExpr::parse_predicate(s.expr, arity, s.expr_loc));
        for (const Key& k : src.keys)
          if (n.key_fn->test(k)) n.keys.push_back(k);
        if (n.keys.empty()) throw UserError(s.expr_loc, "the filter keeps no tuple of '" + s.input + "'");
        n.type.frontier = bounding_frontier(n.keys, arity);
        break;
      }
      case model::TraStatement::Op::ReKey: {
        n.kind = TraNode::Kind::ReKey;
        n.key_fn = std::make_shared<const KeyExpr>(KeyExpr::parse_map(s.expr, arity, s.expr_loc));
        std::map<Key, Key> from;
        for (const Key& k : src.keys) {
          Key m = n.key_fn->map(k);
          for (Index v : m)
            if (v < 0) throw UserError(s.expr_loc, "rekey maps key " + to_string(k) + " to " + to_string(m) + ", which has a negative entry");
          auto [it, fresh] = from.emplace(m, k);
          if (!fresh)
            throw UserError(s.expr_loc, "rekey maps both " + to_string(it->second) + " and " + to_string(k) + " to " + to_string(m) +
                                            ": keys must stay unique (TRA §3.2)");
          n.keys.push_back(m);
        }
        std::sort(n.keys.begin(), n.keys.end());
        n.type.frontier = bounding_frontier(n.keys, n.key_fn->out_arity());
        break;
      }
      case model::TraStatement::Op::Transform: {
        n.kind = TraNode::Kind::Transform;
        n.keys = src.keys;
        if (s.expr == "diag") {
          const Shape& b = src.type.chunk_shape;
          if (b.size() != 2 || b[0] != b[1])
            throw UserError(s.expr_loc, "diag needs square matrix chunks, but '" + s.input + "' has chunks " + shape_string(b));
          n.array_kernel = TraNode::ArrayKernel::Diag;
          n.type.chunk_shape = {b[0]};
        } else {
          n.array_kernel = TraNode::ArrayKernel::Scalar;
          n.scalar = einsum::parse_scalar_function(s.expr, s.expr_loc);
        }
        break;
      }
      case model::TraStatement::Op::Tile: {
        n.kind = TraNode::Kind::Tile;
        if (s.dim >= rank)
          throw UserError(s.loc, "tile dim " + std::to_string(s.dim) + " but chunks of '" + s.input + "' have rank " + std::to_string(rank));
        if (src.type.chunk_shape[s.dim] % s.size != 0)
          throw UserError(s.expr_loc,
                          "tile size " + std::to_string(s.size) + " does not divide the chunk extent " + std::to_string(src.type.chunk_shape[s.dim]));
        n.dim = s.dim;
        n.size = s.size;
        const Index pieces = src.type.chunk_shape[s.dim] / s.size;
        n.type.chunk_shape[s.dim] = s.size;
        n.type.frontier.push_back(pieces);
        for (const Key& k : src.keys)
          for (Index p = 0; p < pieces; ++p) {
            Key t = k;
            t.push_back(p);
            n.keys.push_back(t);
          }
        std::sort(n.keys.begin(), n.keys.end());
        break;
      }
      case model::TraStatement::Op::Concat: {
        n.kind = TraNode::Kind::Concat;
        if (s.key_dim >= arity)
          throw UserError(s.expr_loc,
                          "concat key_dim " + std::to_string(s.key_dim) + " but '" + s.input + "' has " + std::to_string(arity) + " key dimensions");
        if (s.dim >= rank)
          throw UserError(s.loc, "concat dim " + std::to_string(s.dim) + " but chunks of '" + s.input + "' have rank " + std::to_string(rank));
        n.key_dim = s.key_dim;
        n.dim = s.dim;
        const Index parts = src.type.frontier[s.key_dim];
        std::map<Key, Index> members;
        for (const Key& k : src.keys) {
          Key g = k;
          g.erase(g.begin() + s.key_dim);
          ++members[g];
        }
        for (const auto& [g, count] : members) {
          if (count != parts)
            throw UserError(s.loc, "concat along key dimension " + std::to_string(s.key_dim) + " needs " + std::to_string(parts) +
                                       " tuples per group but group " + to_string(g) + " has " + std::to_string(count) + " (the relation has holes)");
          n.keys.push_back(g);
        }
        n.type.frontier.erase(n.type.frontier.begin() + s.key_dim);
        n.type.chunk_shape[s.dim] *= parts;
        break;
      }
    }
    out_.tensor_node[s.output] = add(std::move(n));
  }

  const model::Workflow& wf_;
  int nranks_;
  std::set<std::string> later_outputs_;
  decomp::PartitionerOptions partitioner_;
  std::map<std::string, std::map<Label, Index>> planned_;  // statement output -> d, from the partitioner
  std::map<std::string, int> sparse_nodes_;  // a sparse tensor's node per grid: name + grid -> node
  Lowering out_;
};

}  // namespace

Lowering lower(const model::Workflow& wf, int nranks) { return Lowerer(wf, nranks, wf.run.partitioner).run(); }

Lowering lower(const model::Workflow& wf, int nranks, model::RunOptions::Partitioner partitioner) { return Lowerer(wf, nranks, partitioner).run(); }

}  // namespace tra::logical
