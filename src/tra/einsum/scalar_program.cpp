#include "tra/einsum/scalar_program.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <vector>

namespace tra::einsum {

namespace {

template <class T, class F>
void each(int n, T* out, const T* x, F f) {
  for (int i = 0; i < n; ++i) out[i] = f(x[i]);
}

template <class T, class F>
void each(int n, T* out, const T* x, const T* y, F f) {
  for (int i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
}

}  // namespace

template <class T>
void ScalarProgram::eval_block(const T* a, const T* b, T* out, int n) const {
  // st[d] is the value at stack depth d: an input's own elements, or buf[d].
  static thread_local T buf[kMaxStack][kBlock];
  static thread_local T zeros[kBlock] = {};
  const T* st[kMaxStack];
  int top = 0;
  for (int i = 0; i < size; ++i) {
    const Op op = ops[i];
    if (op == Op::In0) {
      st[top++] = a;
      continue;
    }
    if (op == Op::In1) {
      st[top++] = b ? b : zeros;
      continue;
    }
    if (op == Op::Const) {
      std::fill(buf[top], buf[top] + n, static_cast<T>(imm[i]));
      st[top] = buf[top];
      ++top;
      continue;
    }
    const bool binary = op <= Op::Pow;  // Op lists the pushes, then the binary operations up to Pow, then the unary ones
    if (binary) --top;
    T* o = buf[top - 1];
    const T* x = st[top - 1];
    const T* y = binary ? st[top] : nullptr;
    switch (op) {
      case Op::Add:
        each(n, o, x, y, [](T p, T q) { return p + q; });
        break;
      case Op::Sub:
        each(n, o, x, y, [](T p, T q) { return p - q; });
        break;
      case Op::Mul:
        each(n, o, x, y, [](T p, T q) { return p * q; });
        break;
      case Op::Div:
        each(n, o, x, y, [](T p, T q) { return p / q; });
        break;
      case Op::Max:
        each(n, o, x, y, [](T p, T q) { return nan_max(p, q); });
        break;
      case Op::Min:
        each(n, o, x, y, [](T p, T q) { return nan_min(p, q); });
        break;
      case Op::Eq:
        each(n, o, x, y, [](T p, T q) { return p == q ? T(1) : T(0); });
        break;
      case Op::Pow:
        each(n, o, x, y, [](T p, T q) { return kmath::pow(p, q); });
        break;
      case Op::Neg:
        each(n, o, x, [](T p) { return -p; });
        break;
      case Op::Exp:
        each(n, o, x, [](T p) { return kmath::exp(p); });
        break;
      case Op::Log:
        each(n, o, x, [](T p) { return kmath::log(p); });
        break;
      case Op::Sqrt:
        each(n, o, x, [](T p) { return kmath::sqrt(p); });
        break;
      case Op::Relu:
        each(n, o, x, [](T p) { return nan_relu(p); });
        break;
      case Op::Abs:
        each(n, o, x, [](T p) { return kmath::fabs(p); });
        break;
      case Op::Sq:
        each(n, o, x, [](T p) { return p * p; });
        break;
      case Op::Tanh:
        each(n, o, x, [](T p) { return kmath::tanh(p); });
        break;
      case Op::Sigmoid:
        each(n, o, x, [](T p) { return T(1) / (T(1) + kmath::exp(-p)); });
        break;
      case Op::Step:
        each(n, o, x, [](T p) { return p > 0 ? T(1) : T(0); });
        break;
      case Op::Sign:
        each(n, o, x, [](T p) { return p > 0 ? T(1) : p < 0 ? T(-1) : T(0); });
        break;
      case Op::Softplus:
        each(n, o, x, [](T p) { return softplus(p); });
        break;
      default:
        break;
    }
    st[top - 1] = o;
  }
  std::copy(st[0], st[0] + n, out);
}

template void ScalarProgram::eval_block<double>(const double*, const double*, double*, int) const;
template void ScalarProgram::eval_block<float>(const float*, const float*, float*, int) const;

bool ScalarProgram::is_product() const {
  return size == 3 && ops[2] == Op::Mul && ((ops[0] == Op::In0 && ops[1] == Op::In1) || (ops[0] == Op::In1 && ops[1] == Op::In0));
}

namespace {

// A term c * in0^a * in1^b; a constant when a = b = 0.
struct Monomial {
  double c = 1;
  int a = 0, b = 0;
  bool constant() const { return a == 0 && b == 0; }
};

}  // namespace

double fold(Op op, double p, double q) {
  ScalarProgram f;
  f.ops[0] = Op::Const;
  f.imm[0] = p;
  f.ops[1] = Op::Const;
  f.imm[1] = q;
  f.ops[2] = op;
  f.size = 3;
  if (op > Op::Pow) {  // unary: drop q
    f.ops[1] = op;
    f.size = 2;
  }
  return f.eval(0.0, 0.0);
}

bool ScalarProgram::is_scaled_product(double* scale) const {
  Monomial st[kMaxStack];
  int top = 0;
  for (int i = 0; i < size; ++i) {
    const Op op = ops[i];
    if (op == Op::In0) {
      st[top++] = {1, 1, 0};
      continue;
    }
    if (op == Op::In1) {
      st[top++] = {1, 0, 1};
      continue;
    }
    if (op == Op::Const) {
      st[top++] = {imm[i], 0, 0};
      continue;
    }
    const bool binary = op <= Op::Pow;  // as in eval_block
    Monomial& l = st[binary ? top - 2 : top - 1];
    const Monomial r = binary ? st[top - 1] : Monomial{};
    if (binary) --top;
    if (l.constant() && r.constant()) {
      l.c = fold(op, l.c, r.c);
    } else if (op == Op::Mul) {
      l = {l.c * r.c, l.a + r.a, l.b + r.b};
    } else if (op == Op::Div && r.constant()) {
      l.c = l.c / r.c;
    } else if (op == Op::Neg) {
      l.c = -l.c;
    } else {
      return false;  // a sum, a function or a quotient of the inputs
    }
  }
  if (top != 1 || st[0].a != 1 || st[0].b != 1) return false;
  *scale = st[0].c;
  return true;
}

bool ScalarProgram::is_identity() const { return size == 1 && ops[0] == Op::In0; }

bool ScalarProgram::same(const ScalarProgram& o) const {
  if (size != o.size) return false;
  for (int i = 0; i < size; ++i)
    if (ops[i] != o.ops[i] || (ops[i] == Op::Const && std::memcmp(&imm[i], &o.imm[i], sizeof(double)) != 0)) return false;
  return true;
}

namespace {

// What an operation's time is worth in the loop rate's operations
// (1 / Rates::loop_flops, measured on x * 2 + 1, two of them: about 3 ns on
// the VM, where x * 3 with its memory traffic takes 5.2 ns an element, so a
// loop of one operation is predicted at about half its time). Measured there
// on 10^6 elements with --explain=analyze (its loops were charged one
// operation a function, so tanh ran at 11 times its estimate): tanh 16-33 ns
// an element (slower for |x| near 1), exp 12.6, log 10.2, sqrt 6.7, sigmoid
// 13.2, softplus (an exp and a log1p) 31, pow 19.5-35 (x^1.5, x^3); abs,
// max, step and sign as an add. A GPU's element loops are bound by memory,
// and its built-in loop rate was fitted with every operation counted once:
// there each still counts one until they are measured on one.
int op_flops(Op op) {
  if (op == Op::In0 || op == Op::In1 || op == Op::Const) return 0;
#if defined(KOKKOS_ENABLE_CUDA)
  return 1;
#else
  switch (op) {
    case Op::Tanh:
      return 6;
    case Op::Exp:
    case Op::Sigmoid:
      return 4;
    case Op::Log:
      return 3;
    case Op::Sqrt:
      return 2;
    case Op::Softplus:
    case Op::Pow:
      return 8;
    default:
      return 1;
  }
#endif
}

}  // namespace

int ScalarProgram::flops_per_eval() const {
  int n = 0;
  for (int i = 0; i < size; ++i) n += op_flops(ops[i]);
  return n;
}

int ScalarProgram::inputs_used() const {
  int used = 0;
  for (int i = 0; i < size; ++i) {
    if (ops[i] == Op::In0 && used < 1) used = 1;
    if (ops[i] == Op::In1) used = 2;
  }
  return used;
}

std::string ScalarProgram::str(const std::string& x, const std::string& y) const {
  std::vector<std::string> st;
  // Whether each pending text is a product or quotient at its top: as the
  // right operand of * or / it is parenthesized, since `a / b * c` reads
  // (a / b) * c (left to right), which a / (b * c) is not.
  std::vector<bool> product;
  auto fn = [](const char* name, const std::string& a) { return std::string(name) + "(" + a + ")"; };
  for (int i = 0; i < size; ++i) {
    std::string r, l;
    switch (ops[i]) {
      case Op::In0:
        st.push_back(x);
        continue;
      case Op::In1:
        st.push_back(y);
        continue;
      case Op::Const: {
        std::ostringstream os;
        os << imm[i];
        st.push_back(os.str());
        continue;
      }
      default:
        break;
    }
    const bool binary = ops[i] <= Op::Pow;  // the pushes were handled above
    product.resize(st.size(), false);  // the texts pushed above are no products
    bool r_product = false;
    if (binary) {
      r = st.back();
      r_product = product.back();
      st.pop_back(), product.pop_back();
    }
    l = st.back();
    const bool l_product = product.back();
    st.pop_back(), product.pop_back();
    if (r_product && (ops[i] == Op::Mul || ops[i] == Op::Div)) r = "(" + r + ")";
    switch (ops[i]) {
      case Op::Add:
        st.push_back("(" + l + " + " + r + ")");
        break;
      case Op::Sub:
        st.push_back("(" + l + " - " + r + ")");
        break;
      case Op::Mul:
        st.push_back(l + " * " + r);
        break;
      case Op::Div:
        st.push_back(l + " / " + r);
        break;
      case Op::Max:
        st.push_back("max(" + l + ", " + r + ")");
        break;
      case Op::Min:
        st.push_back("min(" + l + ", " + r + ")");
        break;
      case Op::Eq:
        st.push_back("eq(" + l + ", " + r + ")");
        break;
      case Op::Pow:
        st.push_back("pow(" + l + ", " + r + ")");
        break;
      case Op::Neg:
        st.push_back("-" + l);
        break;
      case Op::Exp:
        st.push_back(fn("exp", l));
        break;
      case Op::Log:
        st.push_back(fn("log", l));
        break;
      case Op::Sqrt:
        st.push_back(fn("sqrt", l));
        break;
      case Op::Relu:
        st.push_back(fn("relu", l));
        break;
      case Op::Abs:
        st.push_back(fn("abs", l));
        break;
      case Op::Sq:
        st.push_back(fn("sq", l));
        break;
      case Op::Tanh:
        st.push_back(fn("tanh", l));
        break;
      case Op::Sigmoid:
        st.push_back(fn("sigmoid", l));
        break;
      case Op::Step:
        st.push_back(fn("step", l));
        break;
      case Op::Sign:
        st.push_back(fn("sign", l));
        break;
      case Op::Softplus:
        st.push_back(fn("softplus", l));
        break;
      default:
        break;
    }
    // -a * b parses as (-a) * b: a negated product is still one.
    product.push_back(ops[i] == Op::Mul || ops[i] == Op::Div || (ops[i] == Op::Neg && l_product));
  }
  return st.empty() ? std::string() : st.back();
}

const char* agg_name(AggOp op) {
  switch (op) {
    case AggOp::Sum:
      return "sum";
    case AggOp::Max:
      return "max";
    case AggOp::Min:
      return "min";
    case AggOp::None:
      break;
  }
  return "none";
}

}  // namespace tra::einsum
