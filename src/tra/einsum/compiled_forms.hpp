#pragma once
// The ⊗ programs that training and the example decks run most, as C++ the
// compiler has seen. The interpreter (ScalarProgram::eval_as) pays a branch
// on the operation for every operation of every element and, on a GPU,
// keeps its stack in the thread's local memory; a program whose operations
// are exactly one form's (its constants aside) runs as that form's
// expression instead, straight-line code with the constants in registers.
//
// A form's expression performs the program's operations in the program's
// order, on its constants rounded to T as the interpreter rounds them, so its
// results equal the interpreter's bit for bit
// (tests/unit/einsum/test_compiled_forms.cpp checks each one, on double and
// float, infinities included; where the interpreter gives NaN a form gives
// NaN, whose payload is the hardware's). The list was chosen by the elements
// each program of the example decks computes: these forms compute 98% of
// them (one run of each deck at 1 rank).
#include <tuple>

#include "tra/einsum/scalar_program.hpp"

namespace tra::einsum {

// The most constants a form reads: c[0], c[1] are the program's constants
// in the order the program pushes them.
constexpr int kFormConsts = 2;

// How many constants an operation list pushes.
template <int N>
constexpr int consts_in(const Op (&ops)[N]) {
  int n = 0;
  for (Op op : ops) n += op == Op::Const;
  return n;
}

namespace forms {

// One form: its program (ops, Op::Const where a constant is pushed) and
// its expression f(x, y, c).
#define TRA_FORM(Name, Text, Expr, ...)                                                         \
  struct Name {                                                                                 \
    static constexpr const char* text = Text;                                                   \
    static constexpr Op ops[] = {__VA_ARGS__};                                                  \
    static_assert(consts_in(ops) <= kFormConsts, "a form reads at most kFormConsts constants"); \
    template <class T>                                                                          \
    KOKKOS_INLINE_FUNCTION static T f(T x, T y, const T* c) {                                   \
      static_cast<void>(x), static_cast<void>(y), static_cast<void>(c);                         \
      return Expr;                                                                              \
    }                                                                                           \
  };

// Element-wise arithmetic: sums of gradients, bias additions, products.
TRA_FORM(Copy, "x", x, Op::In0)
TRA_FORM(Sum, "x + y", x + y, Op::In0, Op::In1, Op::Add)
TRA_FORM(Difference, "x - y", x - y, Op::In0, Op::In1, Op::Sub)
TRA_FORM(Product, "x * y", (x * y), Op::In0, Op::In1, Op::Mul)
TRA_FORM(ProductYX, "y * x", (y * x), Op::In1, Op::In0, Op::Mul)
TRA_FORM(Quotient, "x / y", x / y, Op::In0, Op::In1, Op::Div)
TRA_FORM(Scaled, "x * a", (x * c[0]), Op::In0, Op::Const, Op::Mul)
TRA_FORM(Negated, "-x", -x, Op::In0, Op::Neg)
TRA_FORM(Square, "sq(x)", (x * x), Op::In0, Op::Sq)
TRA_FORM(Relu, "relu(x)", nan_relu(x), Op::In0, Op::Relu)
// Updates: SGD (x + y * a, x - a * y), momentum (x * a + y), Adam's
// moments and step.
TRA_FORM(AddScaled, "x + y * a", x + y * c[0], Op::In0, Op::In1, Op::Const, Op::Mul, Op::Add)
TRA_FORM(SubtractScaled, "x - a * y", x - c[0] * y, Op::In0, Op::Const, Op::In1, Op::Mul, Op::Sub)
TRA_FORM(ScaledAdd, "x * a + y", (x * c[0] + y), Op::In0, Op::Const, Op::Mul, Op::In1, Op::Add)
TRA_FORM(Blend, "x * a + y * b", (x * c[0] + y * c[1]), Op::In0, Op::Const, Op::Mul, Op::In1, Op::Const, Op::Mul, Op::Add)
TRA_FORM(BlendSquare, "x * a + b * y * y", (x * c[0] + c[1] * y * y), Op::In0, Op::Const, Op::Mul, Op::Const, Op::In1, Op::Mul, Op::In1, Op::Mul,
         Op::Add)
TRA_FORM(AdamStep, "sqrt(x) / y + a", kmath::sqrt(x) / y + c[0], Op::In0, Op::Sqrt, Op::In1, Op::Div, Op::Const, Op::Add)
// Layers and their gradients: a bias and ReLU, ReLU's derivative, scaled
// products, softmax's exponent.
TRA_FORM(BiasRelu, "relu(x + y)", nan_relu(x + y), Op::In0, Op::In1, Op::Add, Op::Relu)
TRA_FORM(MaskedBy, "x * step(y)", (x * static_cast<T>(y > 0)), Op::In0, Op::In1, Op::Step, Op::Mul)
TRA_FORM(TimesScaled, "x * (a * y)", x*(c[0] * y), Op::In0, Op::Const, Op::In1, Op::Mul, Op::Mul)
TRA_FORM(ExpDifference, "exp(x - y)", kmath::exp(x - y), Op::In0, Op::In1, Op::Sub, Op::Exp)
TRA_FORM(ExpTimes, "exp(x) * y", kmath::exp(x) * y, Op::In0, Op::Exp, Op::In1, Op::Mul)
// Losses and their gradients: squared error, logistic loss.
TRA_FORM(SquaredError, "sq(x - y)", (x - y) * (x - y), Op::In0, Op::In1, Op::Sub, Op::Sq)
TRA_FORM(SquaredErrorOver, "sq(x - y) / a", (x - y) * (x - y) / c[0], Op::In0, Op::In1, Op::Sub, Op::Sq, Op::Const, Op::Div)
TRA_FORM(SquaredErrorGradient, "-(a * (x - y)) / b", -(c[0] * (x - y)) / c[1], Op::Const, Op::In0, Op::In1, Op::Sub, Op::Mul, Op::Neg, Op::Const,
         Op::Div)
TRA_FORM(LogisticLoss, "(softplus(x) - y * x) / a", (softplus(x) - y * x) / c[0], Op::In0, Op::Softplus, Op::In1, Op::In0, Op::Mul, Op::Sub,
         Op::Const, Op::Div)
TRA_FORM(LogisticGradient, "(sigmoid(x) - y) / a", (T(1) / (T(1) + kmath::exp(-x)) - y) / c[0], Op::In0, Op::Sigmoid, Op::In1, Op::Sub, Op::Const,
         Op::Div)

#undef TRA_FORM

using All = std::tuple<Copy, Sum, Difference, Product, ProductYX, Quotient, Scaled, Negated, Square, Relu, AddScaled, SubtractScaled, ScaledAdd,
                       Blend, BlendSquare, AdamStep, BiasRelu, MaskedBy, TimesScaled, ExpDifference, ExpTimes, SquaredError, SquaredErrorOver,
                       SquaredErrorGradient, LogisticLoss, LogisticGradient>;

}  // namespace forms

// Whether p is form F: the same operations in the same order. Its
// constants, in order, go to c (kFormConsts of them at most).
template <class F>
bool is_form(const ScalarProgram& p, double* c) {
  constexpr int n = static_cast<int>(sizeof(F::ops) / sizeof(F::ops[0]));
  if (p.size != n) return false;
  int k = 0;
  for (int i = 0; i < n; ++i) {
    if (p.ops[i] != F::ops[i]) return false;
    if (p.ops[i] == Op::Const) c[k++] = p.imm[i];
  }
  return true;
}

namespace detail {

template <class Fn, class... F>
bool with_form_of(const ScalarProgram& p, const Fn& fn, std::tuple<F...>*) {
  double c[kFormConsts] = {};
  return ((is_form<F>(p, c) && (fn(static_cast<F*>(nullptr), static_cast<const double*>(c)), true)) || ...);
}

}  // namespace detail

// fn(static_cast<F*>(nullptr), c) for p's form F and its constants c, when
// p has one; returns whether it had.
template <class Fn>
bool with_form(const ScalarProgram& p, const Fn& fn) {
  return detail::with_form_of(p, fn, static_cast<forms::All*>(nullptr));
}

// The text of p's form ("x * a + y * b"), or null when p runs interpreted.
const char* compiled_form(const ScalarProgram& p);

}  // namespace tra::einsum
