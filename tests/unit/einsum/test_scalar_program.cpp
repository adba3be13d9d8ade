// ScalarProgram::eval_block, the host kernels' block form of the ⊗
// interpreter, against eval one element at a time: every operation, programs
// of one and two inputs, constants, deep stacks, and partial blocks. And
// is_scaled_product, which decides that a contraction runs as GEMM.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tra/einsum/parser.hpp"

namespace einsum = tra::einsum;

namespace {

const tra::SourceLoc kWhere{"test", 1, 1};

void expect_blocks_match(const einsum::ScalarProgram& p, bool two_inputs, const std::string& what) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(0.1, 2.0);  // positive: log, sqrt and pow stay real
  for (int n : {1, 3, einsum::ScalarProgram::kBlock - 1, einsum::ScalarProgram::kBlock}) {
    std::vector<double> a(static_cast<size_t>(n)), b(static_cast<size_t>(n)), out(static_cast<size_t>(n), -1);
    for (int i = 0; i < n; ++i) a[i] = u(gen), b[i] = u(gen);
    p.eval_block(a.data(), two_inputs ? b.data() : nullptr, out.data(), n);
    for (int i = 0; i < n; ++i) {
      const double want = p.eval(a[i], two_inputs ? b[i] : 0.0);
      // The same operations in the same order; a vectorized libm may differ by an ulp or two.
      ASSERT_NEAR(out[i], want, 4 * DBL_EPSILON * std::fabs(want)) << what << " element " << i << " of " << n;
    }
  }
}

}  // namespace

TEST(TraScalarProgram, EvalBlockMatchesEvalForEveryUnaryForm) {
  for (const char* f :
       {"x", "-x", "exp(x)", "log(x)", "sqrt(x)", "relu(x - 1)", "abs(x - 1)", "x^2", "tanh(x)", "sigmoid(x)", "2*x + 1", "1 - x", "x / 3",
        "max(x, 1)", "min(x, 1)", "pow(x, 1.5)", "exp(-(x - 1) * (x - 1)) / (1 + sqrt(x) * log(1 + x)) + max(relu(x), tanh(x))"}) {
    expect_blocks_match(einsum::parse_scalar_function(f, kWhere), false, f);
  }
}

TEST(TraScalarProgram, EvalBlockMatchesEvalForTwoInputs) {
  for (const char* st : {"Z[i] = X[i] + Y[i]", "Z[i] = X[i] - Y[i]", "Z[i] = X[i] * Y[i]", "Z[i] = X[i] / Y[i]", "Z[i] = max(X[i], Y[i])",
                         "Z[i] = exp(X[i] - Y[i])", "Z[i] = (X[i] - Y[i]) * (X[i] - Y[i]) + 2 * X[i] / Y[i]"}) {
    expect_blocks_match(einsum::parse_einsum(st, kWhere).join, true, st);
  }
}

TEST(TraScalarProgram, ScaledProductsAreRecognizedWithTheirConstant) {
  // The constant is checked against the program itself: c * x * y = eval(x, y).
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (const char* st :
       {"Z[i] = X[i] * Y[i]", "Z[i] = Y[i] * X[i]", "Z[i] = X[i] * Y[i] / sqrt(8)", "Z[i] = 0.5 * X[i] * Y[i]", "Z[i] = -(X[i] * Y[i])",
        "Z[i] = (X[i] / 4) * (Y[i] * exp(1))", "Z[i] = 2 * 3 * X[i] * Y[i] / (1 + 1)", "Z[i] = -X[i] * -Y[i]"}) {
    const einsum::ScalarProgram p = einsum::parse_einsum(st, kWhere).join;
    double c = 0;
    ASSERT_TRUE(p.is_scaled_product(&c)) << st;
    for (int t = 0; t < 16; ++t) {
      const double x = u(gen), y = u(gen), want = p.eval(x, y);
      EXPECT_NEAR(c * x * y, want, 8 * DBL_EPSILON * std::fabs(want)) << st;
    }
  }
}

TEST(TraScalarProgram, OtherProgramsAreNotScaledProducts) {
  for (const char* st : {"Z[i] = X[i] + Y[i]", "Z[i] = X[i] * Y[i] + 1", "Z[i] = X[i] * X[i]", "Z[i] = X[i] / Y[i]", "Z[i] = exp(X[i]) * Y[i]",
                         "Z[i] = X[i] * Y[i] * X[i]", "Z[i] = sqrt(X[i] * Y[i])", "Z[i] = pow(X[i] * Y[i], 1)", "Z[i] = max(X[i], Y[i])",
                         "Z[i] = X[i] * Y[i] - X[i] * Y[i]"}) {
    double c = 0;
    EXPECT_FALSE(einsum::parse_einsum(st, kWhere).join.is_scaled_product(&c)) << st;
  }
  double c = 0;
  EXPECT_FALSE(einsum::parse_einsum("Z[i] = 2 * X[i]", kWhere).join.is_scaled_product(&c));  // one input
}

// Two programs are the same when their operations and constants are, bit
// for bit: their printed text rounds constants to 6 digits, and a plan that
// took 0.1234567 for 0.1234568 would merge two different kernels.
TEST(TraScalarProgram, SameComparesOperationsAndExactConstants) {
  const auto program = [](const char* text) { return einsum::parse_einsum(text, kWhere).join; };
  const auto a = program("C[i] = A[i] * 0.1234567"), b = program("C[i] = A[i] * 0.1234568");
  EXPECT_EQ(a.str(), b.str());  // the text cannot tell them apart
  EXPECT_FALSE(a.same(b));
  EXPECT_TRUE(a.same(program("C[i] = A[i] * 0.1234567")));
  EXPECT_FALSE(a.same(program("C[i] = A[i] / 0.1234567")));
}
