#include "tra/autodiff/gradients.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "tra/common/error.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/einsum/scalar_expr.hpp"

namespace tra::autodiff {

std::string grad_name(const std::string& tensor) { return tensor + ".grad"; }

namespace {

using einsum::EinSum;
using einsum::Labels;
using einsum::Op;
using einsum::ScalarExpr;
using einsum::ScalarProgram;
using einsum::TensorRef;

// The variables of the expressions below (ScalarExpr leaves).
constexpr int kX0 = 0;  // the statement's first input
constexpr int kX1 = 1;  // its second
constexpr int kG = 2;  // the gradient arriving at its output
constexpr int kZ = 3;  // its output

std::set<std::string> as_set(const Labels& a, const Labels& b = {}) {
  std::set<std::string> s(a.begin(), a.end());
  s.insert(b.begin(), b.end());
  return s;
}

const char* tra_op_name(model::TraStatement::Op op) {
  switch (op) {
    case model::TraStatement::Op::Filter:
      return "filter";
    case model::TraStatement::Op::ReKey:
      return "rekey";
    case model::TraStatement::Op::Transform:
      return "transform";
    case model::TraStatement::Op::Tile:
      return "tile";
    case model::TraStatement::Op::Concat:
      return "concat";
  }
  return "TRA";
}

// exp, sigmoid, tanh and relu have derivatives that are functions of their
// output z: exp' = z, sigmoid' = z(1 − z), tanh' = 1 − z², relu' = step(z).
std::optional<ScalarExpr::Id> derivative_from_output(Op op, ScalarExpr& ex, ScalarExpr::Id z) {
  switch (op) {
    case Op::Exp:
      return z;
    case Op::Sigmoid:
      return ex.apply(Op::Mul, z, ex.apply(Op::Sub, ex.constant(1), z));
    case Op::Tanh:
      return ex.apply(Op::Sub, ex.constant(1), ex.apply(Op::Sq, z));
    case Op::Relu:
      return ex.apply(Op::Step, z);
    default:
      return std::nullopt;
  }
}

class Backward {
 public:
  explicit Backward(const model::Workflow& wf) : wf_(wf) {}

  Gradients run() {
    check_and_mark();
    const auto& g = wf_.graph;
    for (size_t i = g.size(); i-- > 0;) {
      if (const auto* t = std::get_if<model::TraStatement>(&g[i])) {
        if (!need_.count(t->output)) continue;
        if (const auto map = as_elementwise_einsum(*t, wf_)) {
          backward(*map);
          continue;
        }
        throw UserError(t->loc, std::string("the gradient cannot pass a ") + tra_op_name(t->op) + " statement (yet): '" + t->output +
                                    "' lies on the path from a parameter to the loss '" + wf_.train->loss + "'; write it as an EinSum statement");
        continue;
      }
      const EinSum& s = std::get<EinSum>(g[i]);
      if (i >= 4 && is_log_softmax_end(i)) {
        if (need_.count(s.output.name)) log_softmax_backward(std::get<EinSum>(g[i - 4]), s);
        i -= 4;
        continue;
      }
      if (i >= 3 && is_softmax_end(i)) {
        if (need_.count(s.output.name)) softmax_backward(std::get<EinSum>(g[i - 3]), s);
        i -= 3;
        continue;
      }
      if (need_.count(s.output.name)) backward(s);
    }
    Gradients out;
    for (const auto& t : wf_.tensors)
      if (t.param) {
        finish(t.name, Labels(t.shape.size()), t.loc, true);
        out.params.push_back(t.name);
      }
    out.workflow = wf_;
    out.forward = wf_.graph.size();
    for (auto& s : out_) out.workflow.graph.push_back(std::move(s));
    return out;
  }

 private:
  // The loss is a scalar EinSum result; every parameter reaches it. Marks
  // the tensors on a path from a parameter to the loss.
  void check_and_mark() {
    const model::TrainSettings& train = *wf_.train;
    const EinSum* loss = nullptr;
    for (const auto& s : wf_.graph)
      if (model::statement_output(s) == train.loss) {
        loss = std::get_if<EinSum>(&s);
        if (!loss) throw UserError(train.loss_loc, "the loss '" + train.loss + "' must be computed by an EinSum statement, not a TRA statement");
      }
    if (!loss) {
      if (wf_.find_tensor(train.loss))
        throw UserError(train.loss_loc, "the loss '" + train.loss + "' is a declared tensor; it must be computed by a statement from the parameters");
      throw UserError(train.loss_loc, "train: loss names '" + train.loss + "', which no statement computes");
    }
    if (!loss->output.labels.empty()) {
      std::string ls;
      for (const auto& l : loss->output.labels) ls += (ls.empty() ? "" : ", ") + l;
      throw UserError(train.loss_loc, "the loss '" + train.loss + "' must be a scalar (every label summed, as in " + train.loss +
                                          " = sum_{...} ...), but it has labels [" + ls + "]");
    }
    std::set<std::string> from_param;
    for (const auto& t : wf_.tensors)
      if (t.param) from_param.insert(t.name);
    if (from_param.empty()) throw UserError(train.loc, "train: no tensor has 'param: true'; mark the tensors to train");
    for (const auto& s : wf_.graph)
      for (const auto& in : model::statement_inputs(s))
        if (from_param.count(in)) from_param.insert(model::statement_output(s));
    std::set<std::string> to_loss{train.loss};
    for (auto it = wf_.graph.rbegin(); it != wf_.graph.rend(); ++it)
      if (to_loss.count(model::statement_output(*it)))
        for (const auto& in : model::statement_inputs(*it)) to_loss.insert(in);
    for (const auto& t : wf_.tensors)
      if (t.param && !to_loss.count(t.name))
        throw UserError(t.param_loc,
                        "parameter '" + t.name + "' has no path to the loss '" + train.loss + "': no statement that leads to the loss reads it");
    for (const auto& n : from_param)
      if (to_loss.count(n)) need_.insert(n);
  }

  // Statements i−3 … i are a softmax as the parser expands it: N.max, N.exp,
  // N.sum, N.
  bool is_softmax_end(size_t i) const {
    const std::string& n = model::statement_output(wf_.graph[i]);
    return n.find('.') == std::string::npos && model::statement_output(wf_.graph[i - 3]) == n + ".max" &&
           model::statement_output(wf_.graph[i - 2]) == n + ".exp" && model::statement_output(wf_.graph[i - 1]) == n + ".sum";
  }

  // Statements i−4 … i are a log_softmax: N.max, N.exp, N.sum, N.lse, N.
  bool is_log_softmax_end(size_t i) const {
    const std::string& n = model::statement_output(wf_.graph[i]);
    return n.find('.') == std::string::npos && model::statement_output(wf_.graph[i - 4]) == n + ".max" &&
           model::statement_output(wf_.graph[i - 3]) == n + ".exp" && model::statement_output(wf_.graph[i - 2]) == n + ".sum" &&
           model::statement_output(wf_.graph[i - 1]) == n + ".lse";
  }

  // A generated statement; labels in the inputs but not in the output are summed.
  static EinSum make(const std::string& out, const Labels& out_labels, std::vector<TensorRef> ins, const ScalarProgram& prog, const SourceLoc& at) {
    return einsum::make_sum_einsum(TensorRef{out, out_labels, at}, std::move(ins), prog, at);
  }

  ScalarProgram program(const ScalarExpr& ex, ScalarExpr::Id e, std::vector<int> slot_of, const EinSum& s) const {
    slot_of.resize(4, -1);
    const auto p = ex.program(e, slot_of);
    if (!p)
      throw UserError(s.loc,
                      "the derivative of '" + s.text +
                          "' does not fit one statement (at most 48 operations, 16 values pending); split the expression over several statements");
    return *p;
  }

  static ScalarProgram simple(Op op, int inputs) {
    ScalarProgram p;
    p.ops[0] = Op::In0;
    p.size = 1;
    if (inputs == 2) p.ops[p.size++] = Op::In1;
    if (op != Op::In0) p.ops[p.size++] = op;
    return p;
  }

  void emit(EinSum e) { out_.emplace_back(std::move(e)); }

  void contribute(const std::string& tensor, EinSum e) {
    contributions_[tensor].push_back({out_.size(), ""});
    emit(std::move(e));
  }

  // A contribution that is an existing tensor as it is (the gradient of
  // Z = X + Y reaching X): no statement copies it.
  void contribute_as_is(const std::string& tensor, const std::string& existing) { contributions_[tensor].push_back({0, existing}); }

  // The gradient arriving at `z` (read with `labels`): complete now, since
  // every statement that reads z came later in the graph and has been
  // differentiated. None for the loss: its gradient is 1, folded into the
  // statements that would read it.
  std::optional<TensorRef> gradient_of(const std::string& z, const Labels& labels, const SourceLoc& at) {
    if (z == wf_.train->loss) return std::nullopt;
    return TensorRef{finish(z, labels, at, false), labels, at};
  }

  // Names z's contributions and returns the tensor that holds z's gradient:
  // one contribution is z.grad itself (or, `named` false, the tensor it is
  // as it is); several are added into z.grad. A parameter's is always named
  // z.grad, which outputs may write.
  std::string finish(const std::string& z, Labels labels, const SourceLoc& at, bool named) {
    auto& parts = contributions_[z];
    if (parts.empty()) throw InternalError("autodiff: '" + z + "' on the path to the loss received no gradient");
    for (size_t i = 0; i < labels.size(); ++i) labels[i] = "g" + std::to_string(i);
    auto name_part = [&](const Contribution& c, const std::string& name) {
      if (!c.as_is.empty()) return c.as_is;
      rename(c.statement, name);
      return name;
    };
    if (parts.size() == 1) {
      if (!parts[0].as_is.empty() && named) {
        emit(make(grad_name(z), labels, {TensorRef{parts[0].as_is, labels, at}}, simple(Op::In0, 1), at));
        return grad_name(z);
      }
      return name_part(parts[0], grad_name(z));
    }
    std::string sum = name_part(parts[0], grad_name(z) + ".1");
    for (size_t k = 1; k < parts.size(); ++k) {
      const std::string part = name_part(parts[k], grad_name(z) + "." + std::to_string(k + 1));
      const std::string out = k + 1 == parts.size() ? grad_name(z) : grad_name(z) + ".sum" + std::to_string(k + 1);
      emit(make(out, labels, {TensorRef{sum, labels, at}, TensorRef{part, labels, at}}, simple(Op::Add, 2), at));
      sum = out;
    }
    return grad_name(z);
  }

  void rename(size_t at, const std::string& name) {
    EinSum& e = std::get<EinSum>(out_[at]);
    e.output.name = name;
    e.text = e.str();
  }

  void backward(const EinSum& s) {
    std::vector<size_t> slots;
    for (size_t k = 0; k < s.inputs.size(); ++k)
      if (need_.count(s.inputs[k].name)) slots.push_back(k);
    std::optional<TensorRef> g = gradient_of(s.output.name, s.output.labels, s.loc);
    if (slots.empty()) return;
    const Labels all = s.all_labels();
    ScalarExpr ex;
    const ScalarExpr::Id f = ex.read(s.join, ex.var(kX0), ex.var(kX1));
    // Max and min: the gradient goes to the arg-extremes, over every label.
    bool routed = false;
    if (s.agg == einsum::AggOp::Max || s.agg == einsum::AggOp::Min) {
      g = route_to_extremes(s, g, all);
      routed = true;
    }
    for (size_t k : slots) {
      const TensorRef& x = s.inputs[k];
      const ScalarExpr::Id d = ex.derivative(f, k == 0 ? kX0 : kX1);
      // f = g(u) with g one of exp, sigmoid, tanh, relu and ∂u/∂x a
      // constant c (relu(x + b), exp(x)): x.grad = g · c · g'(z), which reads
      // the output instead of recomputing g's argument.
      Scalar c = 0;
      const std::optional<ScalarExpr::Id> from_output =
          routed || !s.agg_labels.empty() ? std::nullopt : derivative_from_output(ex.top(f), ex, ex.var(kZ));
      if (from_output && ex.is_constant(ex.derivative(ex.operand(f), k == 0 ? kX0 : kX1), &c)) {
        const ScalarExpr::Id cd = ex.apply(Op::Mul, ex.constant(c), *from_output);
        if (g) contribute(x.name, make("", x.labels, {*g, s.output}, program(ex, ex.apply(Op::Mul, ex.var(kG), cd), {-1, -1, 0, 1}, s), s.loc));
        else contribute(x.name, make("", x.labels, {s.output}, program(ex, cd, {-1, -1, -1, 0}, s), s.loc));
        continue;
      }
      // ∂f/∂x = 1, x read with g's labels in g's order, and no other label
      // (none summed, which would count): x's gradient contribution is g.
      if (g && ex.is_constant(d, &c) && c == 1 && x.labels == g->labels && as_set(all) == as_set(g->labels)) {
        contribute_as_is(x.name, g->name);
        continue;
      }
      contribute(x.name, gradient_statement(s, k, g, all, ex, d));
    }
  }

  // x_k.grad[l_k] = Σ g · d over the labels x_k lacks, reading g and at most
  // one forward input when their labels cover the statement's; otherwise d
  // is materialized over every label first.
  EinSum gradient_statement(const EinSum& s, size_t k, const std::optional<TensorRef>& g, const Labels& all, ScalarExpr& ex, ScalarExpr::Id d) {
    const TensorRef& x = s.inputs[k];
    const std::set<std::string> every(all.begin(), all.end());
    const Labels lg = g ? g->labels : Labels{};
    const unsigned reads = ex.vars(d);
    const ScalarExpr::Id gd = g ? ex.apply(Op::Mul, ex.var(kG), d) : d;
    // Candidates for the one forward input read beside g: the one d reads,
    // or, d constant, none, the other input, then x itself.
    std::vector<int> candidates;
    if (reads == 0) candidates = {-1, 1 - static_cast<int>(k), static_cast<int>(k)};
    else if (reads == 1u << kX0) candidates = {0};
    else if (reads == 1u << kX1) candidates = {1};
    for (int m : candidates) {
      if (m >= static_cast<int>(s.inputs.size())) continue;
      const Labels lm = m < 0 ? Labels{} : s.inputs[static_cast<size_t>(m)].labels;
      if (as_set(lg, lm) != every || (m < 0 && !g)) continue;
      std::vector<TensorRef> ins;
      std::vector<int> slot_of(4, -1);
      if (g) {
        slot_of[kG] = static_cast<int>(ins.size());
        ins.push_back(*g);
      }
      if (m >= 0) {
        slot_of[static_cast<size_t>(m)] = static_cast<int>(ins.size());
        ins.push_back(s.inputs[static_cast<size_t>(m)]);
      }
      return make("", x.labels, std::move(ins), program(ex, gd, slot_of, s), s.loc);
    }
    // Without g (the loss's own statement), Σ ∂f/∂x over the labels x lacks
    // is one statement over the forward inputs.
    std::vector<TensorRef> fwd(s.inputs.begin(), s.inputs.end());
    if (!g) return make("", x.labels, fwd, program(ex, d, {0, fwd.size() > 1 ? 1 : -1}, s), s.loc);
    // ∂f/∂x over every label, then reduced with g.
    const std::string dname = s.output.name + ".d" + std::to_string(k);
    emit(make(dname, all, fwd, program(ex, d, {0, fwd.size() > 1 ? 1 : -1}, s), s.loc));
    return make("", x.labels, {*g, TensorRef{dname, all, s.loc}}, simple(Op::Mul, 2), s.loc);
  }

  // Z = max/min over agg of f: the gradient of Z, divided among the
  // arguments that reach the extreme (ties share it, as PyTorch's amax),
  // as a tensor over every label of the statement.
  std::optional<TensorRef> route_to_extremes(const EinSum& s, const std::optional<TensorRef>& g, const Labels& all) {
    const std::string z = s.output.name;
    TensorRef value{z + ".value", all, s.loc};
    if (s.inputs.size() == 1 && s.join.is_identity() && s.inputs[0].labels == all) value = s.inputs[0];
    else emit(make(value.name, all, std::vector<TensorRef>(s.inputs.begin(), s.inputs.end()), s.join, s.loc));
    const TensorRef at{z + ".at", all, s.loc};
    emit(make(at.name, all, {value, s.output}, simple(Op::Eq, 2), s.loc));
    const TensorRef ties{z + ".ties", s.output.labels, s.loc};
    emit(make(ties.name, s.output.labels, {at}, simple(Op::In0, 1), s.loc));
    const TensorRef share{z + ".share", s.output.labels, s.loc};
    if (g) {
      emit(make(share.name, s.output.labels, {*g, ties}, simple(Op::Div, 2), s.loc));
    } else {
      ScalarExpr ex;
      emit(make(share.name, s.output.labels, {ties}, program(ex, ex.apply(Op::Div, ex.constant(1), ex.var(kX0)), {0}, s), s.loc));
    }
    const TensorRef routed{z + ".routed", all, s.loc};
    emit(make(routed.name, all, {at, share}, simple(Op::Mul, 2), s.loc));
    return routed;
  }

  // P = softmax_j(S): S.grad = P · (P.grad − Σ_j P.grad · P), which never
  // exponentiates again and cancels nothing large.
  void softmax_backward(const EinSum& max_stmt, const EinSum& p_stmt) {
    const TensorRef& s_ref = max_stmt.inputs[0];
    const std::optional<TensorRef> g = gradient_of(p_stmt.output.name, p_stmt.output.labels, p_stmt.loc);
    if (!need_.count(s_ref.name)) return;
    const Labels& lp = p_stmt.output.labels;  // the same labels as the softmax's input
    const TensorRef dot{p_stmt.output.name + ".gdot", max_stmt.output.labels, p_stmt.loc};
    const TensorRef diff{p_stmt.output.name + ".gdiff", lp, p_stmt.loc};
    // Never the loss: a softmax keeps its label.
    emit(make(dot.name, dot.labels, {*g, p_stmt.output}, simple(Op::Mul, 2), p_stmt.loc));
    emit(make(diff.name, lp, {*g, dot}, simple(Op::Sub, 2), p_stmt.loc));
    contribute(s_ref.name, make("", s_ref.labels, {p_stmt.output, diff}, simple(Op::Mul, 2), p_stmt.loc));
  }

  // P = log_softmax_j(S): S.grad = P.grad − exp(P) · Σ_j P.grad.
  void log_softmax_backward(const EinSum& max_stmt, const EinSum& p_stmt) {
    const TensorRef& s_ref = max_stmt.inputs[0];
    const std::optional<TensorRef> g = gradient_of(p_stmt.output.name, p_stmt.output.labels, p_stmt.loc);
    if (!need_.count(s_ref.name)) return;
    const Labels& lp = p_stmt.output.labels;
    const TensorRef gsum{p_stmt.output.name + ".gsum", max_stmt.output.labels, p_stmt.loc};
    const TensorRef part{p_stmt.output.name + ".gpart", lp, p_stmt.loc};
    // Never the loss: a log_softmax keeps its label.
    emit(make(gsum.name, gsum.labels, {*g}, simple(Op::In0, 1), p_stmt.loc));
    ScalarExpr ex;
    const ScalarExpr::Id prob = ex.apply(Op::Mul, ex.apply(Op::Exp, ex.var(kX0)), ex.var(kX1));
    emit(make(part.name, lp, {p_stmt.output, gsum}, program(ex, prob, {0, 1}, p_stmt), p_stmt.loc));
    contribute(s_ref.name, make("", s_ref.labels, {*g, part}, simple(Op::Sub, 2), p_stmt.loc));
  }

  const model::Workflow& wf_;
  std::set<std::string> need_;  // tensors on a path from a parameter to the loss
  std::vector<model::Statement> out_;
  struct Contribution {
    size_t statement = 0;  // its place in out_, or
    std::string as_is;  // the tensor it is, unchanged
  };
  std::map<std::string, std::vector<Contribution>> contributions_;
};

}  // namespace

std::optional<einsum::EinSum> as_elementwise_einsum(const model::TraStatement& t, const model::Workflow& wf) {
  if (t.op != model::TraStatement::Op::Transform || t.expr == "diag") return std::nullopt;
  std::optional<std::size_t> rank;
  if (const model::TensorDecl* d = wf.find_tensor(t.input)) rank = d->shape.size();
  for (const auto& s : wf.graph)
    if (const auto* e = std::get_if<EinSum>(&s); e && e->output.name == t.input) rank = e->output.labels.size();
  if (!rank) return std::nullopt;  // a TRA statement's relation: not a whole tensor in standard form
  Labels labels;
  for (std::size_t i = 0; i < *rank; ++i) labels.push_back("u" + std::to_string(i));
  return einsum::make_sum_einsum(einsum::TensorRef{t.output, labels, t.loc}, {einsum::TensorRef{t.input, labels, t.loc}},
                                 einsum::parse_scalar_function(t.expr, t.expr_loc), t.loc);
}

Gradients with_gradients(const model::Workflow& wf) {
  if (!wf.train) throw InternalError("with_gradients: the workflow has no train: section");
  return Backward(wf).run();
}

}  // namespace tra::autodiff
