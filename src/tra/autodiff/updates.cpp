#include "tra/autodiff/updates.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "tra/einsum/scalar_expr.hpp"

namespace tra::autodiff {

std::string next_name(const std::string& tensor) { return tensor + ".next"; }

std::string carried_by(const std::string& name) {
  const std::string suffix = next_name("");
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return "";
  return name.substr(0, name.size() - suffix.size());
}

namespace {

// Adam's per-step scalars (torch.optim.Adam: step_size = lr / (1 − β1^t),
// denominators divided by sqrt(1 − β2^t)); the update multiplies by the
// negated step size, as addcdiv_(value = −step_size) does.
const char* const kAdamNegStepSize = "adam.neg_step_size";
const char* const kAdamBias2Sqrt = "adam.bias_correction2_sqrt";

using Build = std::function<einsum::ScalarExpr::Id(einsum::ScalarExpr&, einsum::ScalarExpr::Id x, einsum::ScalarExpr::Id y)>;

// out[l] = f(in0[l], in1[l]) element-wise over one label per dimension of
// `rank`; a 0-d in1 (a step scalar) is read with no labels.
einsum::EinSum elementwise(const std::string& out, const std::string& in0, const std::string& in1, bool in1_scalar, std::size_t rank, const Build& f,
                           const SourceLoc& at) {
  einsum::Labels labels;
  for (std::size_t i = 0; i < rank; ++i) labels.push_back("u" + std::to_string(i));
  einsum::ScalarExpr ex;
  const einsum::ScalarProgram program = *ex.program(f(ex, ex.var(0), ex.var(1)), {0, 1});
  return einsum::make_sum_einsum(einsum::TensorRef{out, labels, at},
                                 {einsum::TensorRef{in0, labels, at}, einsum::TensorRef{in1, in1_scalar ? einsum::Labels{} : labels, at}}, program,
                                 at);
}

// out = a·in0 + b·in1, as PyTorch rounds it (p − lr·g, β·buf + g): a factor
// of 1 is left out (the expression simplifies it away). `nonnegative`:
// projected onto x >= 0 (relu) in the same statement.
einsum::EinSum combine(const std::string& out, const std::string& in0, Scalar a, const std::string& in1, Scalar b, std::size_t rank,
                       const SourceLoc& at, bool nonnegative = false) {
  return elementwise(
      out, in0, in1, false, rank,
      [&](einsum::ScalarExpr& e, auto x, auto y) {
        const auto sum = e.apply(einsum::Op::Add, e.apply(einsum::Op::Mul, x, e.constant(a)), e.apply(einsum::Op::Mul, y, e.constant(b)));
        return nonnegative ? e.apply(einsum::Op::Relu, sum) : sum;
      },
      at);
}

model::TensorDecl zeros_like(const model::TensorDecl& w, const std::string& name) {
  model::TensorDecl t;
  t.name = name;
  t.shape = w.shape;
  t.source = model::Generator{};  // zeros
  t.loc = w.loc;
  return t;
}

// torch.optim.Adam's single-tensor step, statement by statement:
//   m = β1·m + (1−β1)·g;  v = β2·v + (1−β2)·g·g
//   denom = sqrt(v) / sqrt(1−β2^t) + eps;  W = W + (−step_size·m) / denom
// Returns the statement computing W.next's increment's name.
std::string adam_step(model::Workflow& wf, const model::TensorDecl& w, const model::UpdateRule& rule, std::vector<std::string>& state) {
  using einsum::Op;
  const std::string& p = w.name;
  const std::size_t rank = w.shape.size();
  const std::string m = p + ".exp_avg", v = p + ".exp_avg_sq";
  wf.tensors.push_back(zeros_like(w, m));
  wf.tensors.push_back(zeros_like(w, v));
  state.push_back(m);
  state.push_back(v);
  wf.graph.push_back(combine(next_name(m), m, rule.beta, grad_name(p), 1 - rule.beta, rank, rule.loc));
  const Scalar c2 = 1 - rule.beta2;
  wf.graph.push_back(elementwise(
      next_name(v), v, grad_name(p), false, rank,
      [&](einsum::ScalarExpr& e, auto x, auto g) {
        return e.apply(Op::Add, e.apply(Op::Mul, x, e.constant(rule.beta2)), e.apply(Op::Mul, e.apply(Op::Mul, e.constant(c2), g), g));
      },
      rule.loc));
  const std::string denom = p + ".adam_denom", scaled = p + ".adam_scaled", step = p + ".adam_step";
  const Scalar eps = rule.eps;
  wf.graph.push_back(elementwise(
      denom, next_name(v), kAdamBias2Sqrt, true, rank,
      [&](einsum::ScalarExpr& e, auto x, auto s) { return e.apply(Op::Add, e.apply(Op::Div, e.apply(Op::Sqrt, x), s), e.constant(eps)); }, rule.loc));
  wf.graph.push_back(elementwise(
      scaled, next_name(m), kAdamNegStepSize, true, rank, [&](einsum::ScalarExpr& e, auto x, auto s) { return e.apply(Op::Mul, s, x); }, rule.loc));
  wf.graph.push_back(elementwise(
      step, scaled, denom, false, rank, [&](einsum::ScalarExpr& e, auto x, auto d) { return e.apply(Op::Div, x, d); }, rule.loc));
  return step;
}

}  // namespace

std::vector<std::string> add_updates(Gradients& g, const model::UpdateRule& rule) {
  model::Workflow& wf = g.workflow;
  std::vector<std::string> carried, state;
  const std::vector<model::TensorDecl> declared = wf.tensors;
  if (rule.kind == model::UpdateRule::Kind::Adam) {
    for (const char* name : {kAdamNegStepSize, kAdamBias2Sqrt}) {
      model::TensorDecl s;
      s.name = name;
      s.source = model::Generator{};  // set by the loop every step (step_scalars)
      s.loc = rule.loc;
      wf.tensors.push_back(s);
    }
  }
  for (const std::string& p : g.params) {
    const model::TensorDecl& w = *std::find_if(declared.begin(), declared.end(), [&](const model::TensorDecl& t) { return t.name == p; });
    const std::size_t rank = w.shape.size();
    switch (rule.kind) {
      case model::UpdateRule::Kind::Sgd:  // W = W − lr·g
        wf.graph.push_back(combine(next_name(p), p, 1, grad_name(p), -rule.lr, rank, rule.loc, w.nonnegative));
        break;
      case model::UpdateRule::Kind::Momentum: {
        // buf = β·buf + g (PyTorch's first step takes buf = g: the same from
        // zero); W = W − lr·buf
        const model::TensorDecl buf = zeros_like(w, p + ".momentum");
        wf.tensors.push_back(buf);
        wf.graph.push_back(combine(next_name(buf.name), buf.name, rule.beta, grad_name(p), 1, rank, rule.loc));
        state.push_back(buf.name);
        wf.graph.push_back(combine(next_name(p), p, 1, next_name(buf.name), -rule.lr, rank, rule.loc, w.nonnegative));
        break;
      }
      case model::UpdateRule::Kind::Adam:
        wf.graph.push_back(combine(next_name(p), p, 1, adam_step(wf, w, rule, state), 1, rank, rule.loc, w.nonnegative));
        break;
    }
    carried.push_back(p);
  }
  carried.insert(carried.end(), state.begin(), state.end());
  return carried;
}

std::map<std::string, double> step_scalars(const model::UpdateRule& rule, Index step) {
  if (rule.kind != model::UpdateRule::Kind::Adam) return {};
  const double t = static_cast<double>(step);
  // As torch.optim.Adam (1.13, single-tensor path) computes them in Python floats.
  const double bias_correction1 = 1 - std::pow(rule.beta, t);
  const double bias_correction2 = 1 - std::pow(rule.beta2, t);
  return {{kAdamNegStepSize, -(rule.lr / bias_correction1)}, {kAdamBias2Sqrt, std::sqrt(bias_correction2)}};
}

}  // namespace tra::autodiff
