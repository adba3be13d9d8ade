#include "tra/einsum/scalar_expr.hpp"
#include "tra/common/error.hpp"

#include <stdexcept>

namespace tra::einsum {

ScalarExpr::Id ScalarExpr::add(Node n) {
  nodes_.push_back(n);
  return static_cast<Id>(nodes_.size()) - 1;
}

ScalarExpr::Id ScalarExpr::var(int v) { return add({Op::In0, static_cast<Scalar>(v), -1, -1}); }

ScalarExpr::Id ScalarExpr::constant(Scalar c) { return add({Op::Const, c, -1, -1}); }

bool ScalarExpr::is_constant(Id e, Scalar* value) const {
  const Node& n = nodes_.at(static_cast<size_t>(e));
  if (n.op != Op::Const) return false;
  if (value) *value = n.c;
  return true;
}

unsigned ScalarExpr::vars(Id e) const {
  const Node& n = nodes_.at(static_cast<size_t>(e));
  if (n.op == Op::In0) return 1u << static_cast<int>(n.c);
  if (n.op == Op::Const) return 0;
  return vars(n.a) | (binary(n.op) ? vars(n.b) : 0u);
}

ScalarExpr::Id ScalarExpr::apply(Op op, Id a, Id b) {
  Scalar ca = 0, cb = 0;
  const bool ka = is_constant(a, &ca);
  if (!binary(op)) {
    if (ka) return constant(fold(op, ca, 0));
    if (op == Op::Neg && nodes_[static_cast<size_t>(a)].op == Op::Neg) return nodes_[static_cast<size_t>(a)].a;
    return add({op, 0, a, -1});
  }
  const bool kb = is_constant(b, &cb);
  if (ka && kb) return constant(fold(op, ca, cb));
  switch (op) {
    case Op::Add:
      if (ka && ca == 0) return b;
      if (kb && cb == 0) return a;
      break;
    case Op::Sub:
      if (kb && cb == 0) return a;
      if (ka && ca == 0) return apply(Op::Neg, b);
      break;
    case Op::Mul:
      // 0·x is 0 for every finite x; a derivative term that vanishes is
      // dropped as PyTorch's graph would never have made it.
      if ((ka && ca == 0) || (kb && cb == 0)) return constant(0);
      if (ka && ca == 1) return b;
      if (kb && cb == 1) return a;
      if (ka && ca == -1) return apply(Op::Neg, b);
      if (kb && cb == -1) return apply(Op::Neg, a);
      break;
    case Op::Div:
      if (ka && ca == 0) return constant(0);
      if (kb && cb == 1) return a;
      break;
    default:
      break;
  }
  return add({op, 0, a, b});
}

ScalarExpr::Id ScalarExpr::read(const ScalarProgram& p, Id x, Id y) {
  std::vector<Id> st;
  for (int i = 0; i < p.size; ++i) {
    const Op op = p.ops[i];
    if (op == Op::In0) {
      st.push_back(x);
      continue;
    }
    if (op == Op::In1) {
      st.push_back(y);
      continue;
    }
    if (op == Op::Const) {
      st.push_back(constant(p.imm[i]));
      continue;
    }
    if (binary(op)) {
      const Id r = st.back();
      st.pop_back();
      st.back() = apply(op, st.back(), r);
    } else {
      st.back() = apply(op, st.back());
    }
  }
  if (st.size() != 1) throw InternalError("ScalarExpr::read: a malformed program");
  return st.back();
}

ScalarExpr::Id ScalarExpr::derivative(Id e, int v) {
  const Node n = nodes_.at(static_cast<size_t>(e));  // a copy: apply() appends
  if (n.op == Op::In0) return constant(static_cast<int>(n.c) == v ? 1 : 0);
  if (n.op == Op::Const || !(vars(e) & (1u << v))) return constant(0);
  const Id a = n.a, b = n.b;
  const Id da = derivative(a, v);
  const Id db = binary(n.op) ? derivative(b, v) : constant(0);
  auto mul = [&](Id p, Id q) { return apply(Op::Mul, p, q); };
  auto half_at_ties = [&](Id p, Id q) {  // ∂max(p, q)/∂p: 1 where p > q, ½ where they tie (PyTorch's maximum)
    return apply(Op::Add, apply(Op::Step, apply(Op::Sub, p, q)), mul(constant(0.5), apply(Op::Eq, p, q)));
  };
  switch (n.op) {
    case Op::Add:
      return apply(Op::Add, da, db);
    case Op::Sub:
      return apply(Op::Sub, da, db);
    case Op::Mul:
      return apply(Op::Add, mul(da, b), mul(a, db));
    case Op::Div:
      return apply(Op::Sub, apply(Op::Div, da, b), apply(Op::Div, mul(a, db), mul(b, b)));
    case Op::Max:
      return apply(Op::Add, mul(da, half_at_ties(a, b)), mul(db, half_at_ties(b, a)));
    case Op::Min:
      return apply(Op::Add, mul(da, half_at_ties(b, a)), mul(db, half_at_ties(a, b)));
    case Op::Eq:
      return constant(0);
    case Op::Pow: {
      Scalar k = 0;
      if (is_constant(b, &k)) return mul(da, mul(constant(k), apply(Op::Pow, a, constant(k - 1))));
      return apply(Op::Add, mul(da, mul(b, apply(Op::Pow, a, apply(Op::Sub, b, constant(1))))), mul(db, mul(e, apply(Op::Log, a))));
    }
    case Op::Neg:
      return apply(Op::Neg, da);
    case Op::Exp:
      return mul(da, e);
    case Op::Log:
      return apply(Op::Div, da, a);
    case Op::Sqrt:
      return apply(Op::Div, da, mul(constant(2), e));
    case Op::Relu:
      return mul(da, apply(Op::Step, a));
    case Op::Abs:
      return mul(da, apply(Op::Sign, a));
    case Op::Sq:
      return mul(da, mul(constant(2), a));
    case Op::Tanh:
      return mul(da, apply(Op::Sub, constant(1), apply(Op::Sq, e)));
    case Op::Sigmoid:
      return mul(da, mul(e, apply(Op::Sub, constant(1), e)));
    case Op::Softplus:
      return mul(da, apply(Op::Sigmoid, a));
    case Op::Step:
    case Op::Sign:
      return constant(0);
    default:
      break;
  }
  throw InternalError("ScalarExpr::derivative: an operation without a rule");
}

bool ScalarExpr::emit(Id e, const std::vector<int>& slot_of, ScalarProgram& out, int& depth) const {
  const Node& n = nodes_.at(static_cast<size_t>(e));
  auto push = [&](Op op, Scalar imm) {
    if (out.size >= ScalarProgram::kMaxOps) return false;
    out.ops[out.size] = op;
    out.imm[out.size] = imm;
    ++out.size;
    return true;
  };
  if (n.op == Op::In0 || n.op == Op::Const) {
    if (++depth > ScalarProgram::kMaxStack) return false;
    if (n.op == Op::Const) return push(Op::Const, n.c);
    const size_t v = static_cast<size_t>(n.c);
    if (v >= slot_of.size() || slot_of[v] < 0) throw InternalError("ScalarExpr::program: a variable with no input slot");
    return push(slot_of[v] == 0 ? Op::In0 : Op::In1, 0);
  }
  if (!emit(n.a, slot_of, out, depth)) return false;
  if (binary(n.op)) {
    if (!emit(n.b, slot_of, out, depth)) return false;
    --depth;
  }
  return push(n.op, 0);
}

std::optional<ScalarProgram> ScalarExpr::program(Id e, const std::vector<int>& slot_of) const {
  ScalarProgram p;
  int depth = 0;
  if (!emit(e, slot_of, p, depth)) return std::nullopt;
  return p;
}

}  // namespace tra::einsum
