// Symbolic derivatives of scalar join functions (einsum/scalar_expr.hpp):
// every operation's rule against central finite differences of the
// interpreter itself, at points away from kinks; the ties of max/min and
// the kinks of relu and abs as PyTorch takes them; simplification; and
// programs emitted over other input slots.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "tra/einsum/parser.hpp"
#include "tra/einsum/scalar_expr.hpp"

using tra::Scalar;
using tra::SourceLoc;
using tra::einsum::Op;
using tra::einsum::ScalarExpr;
using tra::einsum::ScalarProgram;

namespace {

// The join function of "Z[i] = <expr>" over X[i] (in0) and Y[i] (in1).
ScalarProgram join_of(const std::string& expr) { return tra::einsum::parse_einsum("Z[i] = " + expr, SourceLoc{"t", 1, 1}).join; }

// ∂f/∂(input `slot`) as a program of the same two inputs.
ScalarProgram derivative_program(const ScalarProgram& f, int slot) {
  ScalarExpr ex;
  const auto d = ex.derivative(ex.read(f, ex.var(0), ex.var(1)), slot);
  const auto p = ex.program(d, {0, 1});
  EXPECT_TRUE(p.has_value());
  return p.value_or(ScalarProgram{});
}

// Central differences with h = 1e-5 err by about h²·|f'''| + eps·|f|/h: a
// relative 1e-7 holds for these smooth functions on [0.3, 2] in magnitude.
void expect_matches_differences(const std::string& expr, double x, double y) {
  SCOPED_TRACE(expr + " at x = " + std::to_string(x) + ", y = " + std::to_string(y));
  const ScalarProgram f = join_of(expr);
  const double h = 1e-5;
  const double dx = (f.eval(x + h, y) - f.eval(x - h, y)) / (2 * h);
  const double dy = (f.eval(x, y + h) - f.eval(x, y - h)) / (2 * h);
  EXPECT_NEAR(derivative_program(f, 0).eval(x, y), dx, 1e-7 * std::max(1.0, std::abs(dx)));
  EXPECT_NEAR(derivative_program(f, 1).eval(x, y), dy, 1e-7 * std::max(1.0, std::abs(dy)));
}

TEST(ScalarExpr, EveryOperationAgainstFiniteDifferences) {
  const char* const exprs[] = {"X[i] + Y[i]",
                               "X[i] - Y[i]",
                               "X[i] * Y[i]",
                               "X[i] / Y[i]",
                               "max(X[i], Y[i])",
                               "min(X[i], Y[i])",
                               "pow(X[i], Y[i])",
                               "X[i]^3",
                               "-X[i] * Y[i]",
                               "exp(X[i] * Y[i])",
                               "log(X[i] + Y[i])",
                               "sqrt(X[i] * Y[i])",
                               "relu(X[i] - Y[i])",
                               "abs(X[i] - Y[i])",
                               "sq(X[i] - Y[i])",
                               "tanh(X[i] * Y[i])",
                               "sigmoid(X[i] - Y[i])",
                               "softplus(X[i] * Y[i])",
                               "sq(X[i] - Y[i]) / (1 + abs(Y[i]))",
                               "X[i] * Y[i] / sqrt(8)",
                               "exp(X[i] - Y[i]) * log(1 + sq(X[i]))"};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mag(0.3, 2.0);
  for (const char* e : exprs)
    for (int t = 0; t < 5; ++t) {
      double x = mag(rng), y = mag(rng);
      if (std::abs(x - y) < 0.05) y += 0.2;  // away from the kinks of max, min, relu and abs
      expect_matches_differences(e, x, y);
    }
}

// Where PyTorch's backward picks a side: relu'(0) = 0 (its threshold on the
// output), abs'(0) = sign(0) = 0, and maximum/minimum split a tie in halves.
TEST(ScalarExpr, KinksAndTiesAsPyTorch) {
  EXPECT_EQ(derivative_program(join_of("relu(X[i])"), 0).eval(0.0, 0.0), 0.0);
  EXPECT_EQ(derivative_program(join_of("abs(X[i])"), 0).eval(0.0, 0.0), 0.0);
  EXPECT_EQ(derivative_program(join_of("max(X[i], Y[i])"), 0).eval(1.5, 1.5), 0.5);
  EXPECT_EQ(derivative_program(join_of("max(X[i], Y[i])"), 1).eval(1.5, 1.5), 0.5);
  EXPECT_EQ(derivative_program(join_of("min(X[i], Y[i])"), 0).eval(1.5, 1.5), 0.5);
  EXPECT_EQ(derivative_program(join_of("max(X[i], Y[i])"), 0).eval(2.0, 1.0), 1.0);
  EXPECT_EQ(derivative_program(join_of("min(X[i], Y[i])"), 0).eval(2.0, 1.0), 0.0);
}

// ∂(x·y)/∂x is y alone; ∂(2·x + y)/∂x the constant 2; terms that vanish are
// dropped, so a GEMM's gradient is again a bare product.
TEST(ScalarExpr, DerivativesAreSimplified) {
  ScalarExpr ex;
  const auto f = ex.read(join_of("X[i] * Y[i]"), ex.var(0), ex.var(1));
  const auto dx = ex.derivative(f, 0);
  EXPECT_EQ(ex.vars(dx), 2u);  // y only
  const auto p = ex.program(dx, {-1, 0});
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->is_identity());
  Scalar c = 0;
  EXPECT_TRUE(ex.is_constant(ex.derivative(ex.read(join_of("2 * X[i] + Y[i]"), ex.var(0), ex.var(1)), 0), &c));
  EXPECT_EQ(c, 2.0);
  // g · ∂(c·x·y)/∂x emitted over (g, y): the scaled product a GEMM runs.
  const auto s = ex.read(join_of("X[i] * Y[i] / sqrt(8)"), ex.var(0), ex.var(1));
  const auto gd = ex.apply(Op::Mul, ex.var(2), ex.derivative(s, 0));
  const auto q = ex.program(gd, {-1, 1, 0});
  ASSERT_TRUE(q);
  Scalar scale = 0;
  EXPECT_TRUE(q->is_scaled_product(&scale));
  EXPECT_DOUBLE_EQ(scale, 1 / std::sqrt(8.0));
}

// A derivative longer than a program holds is refused, not truncated.
TEST(ScalarExpr, TooLongForAProgramIsEmpty) {
  ScalarExpr ex;
  auto e = ex.var(0);
  for (int i = 0; i < 12; ++i) e = ex.apply(Op::Mul, ex.apply(Op::Tanh, e), ex.apply(Op::Exp, e));
  EXPECT_FALSE(ex.program(ex.derivative(e, 0), {0}).has_value());
}

}  // namespace
