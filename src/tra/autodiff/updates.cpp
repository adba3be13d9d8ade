#include "tra/autodiff/updates.hpp"

#include <algorithm>

namespace tra::autodiff {

std::string next_name(const std::string& tensor) { return tensor + ".next"; }

namespace {

using einsum::EinSum;
using einsum::Op;
using einsum::TensorRef;

// out[l] = a·in0[l] + b·in1[l] over one label per dimension.
EinSum combine(const std::string& out, const std::string& in0, Scalar a, const std::string& in1, Scalar b, std::size_t rank, const SourceLoc& at) {
  einsum::Labels labels;
  for (std::size_t i = 0; i < rank; ++i) labels.push_back("u" + std::to_string(i));
  EinSum e;
  e.loc = at;
  e.output = TensorRef{out, labels, at};
  e.inputs = {TensorRef{in0, labels, at}, TensorRef{in1, labels, at}};
  einsum::ScalarProgram& p = e.join;
  auto push = [&p](Op op, Scalar imm = 0) {
    p.ops[p.size] = op;
    p.imm[p.size++] = imm;
  };
  // As PyTorch rounds them: a·x + b·y with a = 1 left out (p - lr·g, β·buf + g).
  push(Op::In0);
  if (a != 1) {
    push(Op::Const, a);
    push(Op::Mul);
  }
  push(Op::In1);
  if (b != 1) {
    push(Op::Const, b);
    push(Op::Mul);
  }
  push(Op::Add);
  e.text = e.str();
  return e;
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
