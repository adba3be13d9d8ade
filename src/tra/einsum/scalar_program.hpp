#pragma once
// The scalar join function ⊗ of an extended EinSum (EinDecomp §3) compiled to a
// tiny stack program over at most two inputs. It is a plain struct of fixed
// arrays so that a kernel can copy it by value onto any device. It runs on
// elements of type T (double or float): every operation, constants
// included, rounds to T, as NumPy and PyTorch compute on arrays of T.
#include <cmath>
#include <string>

#include "tra/common/kokkos_math.hpp"

namespace tra::einsum {

enum class Op : unsigned char {
  In0,
  In1,
  Const,  // push
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Eq,
  Pow,  // binary (Pow last: `op <= Op::Pow` tests for one)
  Neg,
  Exp,
  Log,
  Sqrt,
  Relu,
  Abs,
  Sq,
  Tanh,
  Sigmoid,  // unary
  Step,
  Sign,
  Softplus  // unary, for derivatives: x > 0; -1, 0 or 1; log(1 + exp(x))
};

// softplus(x) = log(1 + exp(x)) without overflow for large x or loss of
// precision for very negative x.
template <class T>
KOKKOS_INLINE_FUNCTION T softplus(T x) {
  return (x > 0 ? x : T(0)) + kmath::log1p(kmath::exp(-kmath::fabs(x)));
}

// max, min and relu as NumPy's maximum, minimum and PyTorch's relu: a NaN
// on either side is the result (a comparison with NaN is false, so the
// plain `p > q ? p : q` would answer NaN or not by the order of the
// operands, and a reduction by where in the row the NaN sits).
template <class T>
KOKKOS_INLINE_FUNCTION T nan_max(T p, T q) {
  return p > q || p != p ? p : q;
}
template <class T>
KOKKOS_INLINE_FUNCTION T nan_min(T p, T q) {
  return p < q || p != p ? p : q;
}
template <class T>
KOKKOS_INLINE_FUNCTION T nan_relu(T p) {
  return p > 0 || p != p ? p : T(0);
}

struct ScalarProgram {
  static constexpr int kMaxOps = 48;
  static constexpr int kMaxStack = 16;
  int size = 0;
  Op ops[kMaxOps] = {};
  double imm[kMaxOps] = {};  // constants as written; a float program rounds each to float once

  // On double inputs (host callers: the tests, constant folding).
  KOKKOS_INLINE_FUNCTION double eval(double a, double b) const { return eval_as<double>(a, b); }

  // On elements of type T, double or float, every step rounded to T.
  template <class T>
  KOKKOS_INLINE_FUNCTION T eval_as(T a, T b) const {
    T st[kMaxStack];
    int top = 0;
    for (int i = 0; i < size; ++i) {
      switch (ops[i]) {
        case Op::In0:
          st[top++] = a;
          break;
        case Op::In1:
          st[top++] = b;
          break;
        case Op::Const:
          st[top++] = static_cast<T>(imm[i]);
          break;
        case Op::Add:
          --top;
          st[top - 1] = st[top - 1] + st[top];
          break;
        case Op::Sub:
          --top;
          st[top - 1] = st[top - 1] - st[top];
          break;
        case Op::Mul:
          --top;
          st[top - 1] = st[top - 1] * st[top];
          break;
        case Op::Div:
          --top;
          st[top - 1] = st[top - 1] / st[top];
          break;
        case Op::Max:
          --top;
          st[top - 1] = nan_max(st[top - 1], st[top]);
          break;
        case Op::Min:
          --top;
          st[top - 1] = nan_min(st[top - 1], st[top]);
          break;
        case Op::Eq:
          --top;
          st[top - 1] = st[top - 1] == st[top] ? T(1) : T(0);
          break;
        case Op::Pow:
          --top;
          st[top - 1] = kmath::pow(st[top - 1], st[top]);
          break;
        case Op::Neg:
          st[top - 1] = -st[top - 1];
          break;
        case Op::Exp:
          st[top - 1] = kmath::exp(st[top - 1]);
          break;
        case Op::Log:
          st[top - 1] = kmath::log(st[top - 1]);
          break;
        case Op::Sqrt:
          st[top - 1] = kmath::sqrt(st[top - 1]);
          break;
        case Op::Relu:
          st[top - 1] = nan_relu(st[top - 1]);
          break;
        case Op::Abs:
          st[top - 1] = kmath::fabs(st[top - 1]);
          break;
        case Op::Sq:
          st[top - 1] = st[top - 1] * st[top - 1];
          break;
        case Op::Tanh:
          st[top - 1] = kmath::tanh(st[top - 1]);
          break;
        case Op::Sigmoid:
          st[top - 1] = T(1) / (T(1) + kmath::exp(-st[top - 1]));
          break;
        case Op::Step:
          st[top - 1] = st[top - 1] > 0 ? T(1) : T(0);
          break;
        case Op::Sign:
          st[top - 1] = st[top - 1] > 0 ? T(1) : st[top - 1] < 0 ? T(-1) : T(0);
          break;
        case Op::Softplus:
          st[top - 1] = softplus(st[top - 1]);
          break;
      }
    }
    return st[0];
  }

  // The program on n <= kBlock pairs (a[i], b[i]) at once, into out[i]; b may
  // be null for a program of one input. Host code only. It runs one operation
  // over the whole block at a time, so the dispatch on the operation, which
  // costs several times a simple operation when paid per element (eval), is
  // paid once per block, and each step is a plain loop the compiler
  // vectorizes.
  static constexpr int kBlock = 256;
  template <class T>
  void eval_block(const T* a, const T* b, T* out, int n) const;  // T: double or float

  // True when the program is exactly in0 * in1 (either order), as the parser
  // writes a bare product. The kernels ask is_scaled_product, which also
  // accepts a constant factor.
  bool is_product() const;
  // True when the program is c * in0 * in1 for a constant c, however written
  // ("x * y / sqrt(8)", "0.5 * x * y", "-(x * y)"): a contraction that runs as
  // GEMM with alpha = c, which *scale receives. Constant sub-expressions are
  // folded with eval, so c is the value the program itself would compute.
  bool is_scaled_product(double* scale) const;
  // True when the program is exactly in0: a copy.
  bool is_identity() const;
  // The same operations on the same constants (bit for bit), in the same order.
  bool same(const ScalarProgram& o) const;
  // The loop work of one evaluation, in the operations of the loop rate
  // (Rates::loop_flops, measured on x * 2 + 1): an arithmetic operation or
  // comparison counts 1, a function of the math library what its time is
  // worth (op_flops). The cost model charges loops by it, and GFLOP/s of a
  // loop are of these.
  int flops_per_eval() const;
  int inputs_used() const;  // 0, 1 or 2 (highest input slot read + 1)
  std::string str(const std::string& x = "x", const std::string& y = "y") const;  // infix text
};

// op applied to constants (q ignored for a unary op), by the interpreter
// itself, so that a constant folded before evaluation rounds as evaluation
// would (in double: the constants a program keeps).
double fold(Op op, double p, double q);

// ⊕: the aggregation of an EinSum. None means no label is aggregated.
enum class AggOp { None, Sum, Max, Min };

const char* agg_name(AggOp op);

template <class T>
KOKKOS_INLINE_FUNCTION T agg_identity(AggOp op) {
  if (op == AggOp::Max) return -T(HUGE_VAL);
  if (op == AggOp::Min) return T(HUGE_VAL);
  return T(0);
}

template <class T>
KOKKOS_INLINE_FUNCTION T agg_combine(AggOp op, T acc, T v) {
  if (op == AggOp::Max) return nan_max(acc, v);
  if (op == AggOp::Min) return nan_min(acc, v);
  return acc + v;
}

}  // namespace tra::einsum
