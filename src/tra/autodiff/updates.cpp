#include "tra/autodiff/updates.hpp"

#include <algorithm>

#include "tra/einsum/scalar_expr.hpp"

namespace tra::autodiff {

std::string next_name(const std::string& tensor) { return tensor + ".next"; }

std::string carried_by(const std::string& name) {
  const std::string suffix = next_name("");
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return "";
  return name.substr(0, name.size() - suffix.size());
}

namespace {

// out[l] = a·in0[l] + b·in1[l] over one label per dimension, as PyTorch
// rounds it (p − lr·g, β·buf + g): a factor of 1 is left out.
einsum::EinSum combine(const std::string& out, const std::string& in0, Scalar a, const std::string& in1, Scalar b, std::size_t rank, const SourceLoc& at) {
  einsum::Labels labels;
  for (std::size_t i = 0; i < rank; ++i) labels.push_back("u" + std::to_string(i));
  einsum::ScalarExpr ex;
  auto scaled = [&](int slot, Scalar c) { return ex.apply(einsum::Op::Mul, ex.var(slot), ex.constant(c)); };
  const einsum::ScalarProgram program = *ex.program(ex.apply(einsum::Op::Add, scaled(0, a), scaled(1, b)), {0, 1});
  return einsum::make_sum_einsum(einsum::TensorRef{out, labels, at}, {einsum::TensorRef{in0, labels, at}, einsum::TensorRef{in1, labels, at}}, program, at);
}

}  // namespace

std::vector<std::string> add_updates(Gradients& g, const model::UpdateRule& rule) {
  model::Workflow& wf = g.workflow;
  std::vector<std::string> carried, state;
  const std::vector<model::TensorDecl> declared = wf.tensors;
  for (const std::string& p : g.params) {
    const model::TensorDecl& w = *std::find_if(declared.begin(), declared.end(), [&](const model::TensorDecl& t) { return t.name == p; });
    const std::size_t rank = w.shape.size();
    std::string step = grad_name(p);
    if (rule.kind == model::UpdateRule::Kind::Momentum) {
      // buf = β·buf + g (PyTorch's first step takes buf = g: the same from zero).
      model::TensorDecl buf;
      buf.name = p + ".momentum";
      buf.shape = w.shape;
      buf.source = model::Generator{};  // zeros
      buf.loc = w.loc;
      wf.tensors.push_back(buf);
      wf.graph.push_back(combine(next_name(buf.name), buf.name, rule.beta, grad_name(p), 1, rank, rule.loc));
      state.push_back(buf.name);
      step = next_name(buf.name);
    }
    // W = W − lr·step
    wf.graph.push_back(combine(next_name(p), p, 1, step, -rule.lr, rank, rule.loc));
    carried.push_back(p);
  }
  carried.insert(carried.end(), state.begin(), state.end());
  return carried;
}

}  // namespace tra::autodiff
