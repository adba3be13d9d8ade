// The EinSum parser: both spellings of a statement, the scalar join program it
// compiles ⊗ to, the aggregation ⊕ and its labels, and errors that point at the
// offending column of the user's file.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tra/einsum/parser.hpp"

using tra::SourceLoc;
using tra::einsum::AggOp;
using tra::einsum::EinSum;
using tra::einsum::Labels;
using tra::einsum::parse_einsum;

namespace {

// Statements are located as in a deck: line 4, starting at column 7.
const SourceLoc kWhere{"deck.yaml", 4, 7};

// Parse `text`, which must fail; return the message.
std::string error_of(const std::string& text) {
  try {
    parse_einsum(text, kWhere);
  } catch (const tra::UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for: " << text;
  return "";
}

// The location prefix of an error at `offset` (0-based) within the statement:
// columns are 1-based, and the statement's first character is kWhere.column.
std::string at(size_t offset) { return "deck.yaml:4:" + std::to_string(kWhere.column + static_cast<int>(offset)) + ": "; }

}  // namespace

TEST(TraParser, MatmulWithSumPrefix) {
  const EinSum e = parse_einsum("C[i,k] = sum_j A[i,j] * B[j,k]", kWhere);
  EXPECT_EQ(e.output.name, "C");
  EXPECT_EQ(e.output.labels, (Labels{"i", "k"}));
  ASSERT_EQ(e.inputs.size(), 2u);
  EXPECT_EQ(e.inputs[0].name, "A");
  EXPECT_EQ(e.inputs[0].labels, (Labels{"i", "j"}));
  EXPECT_EQ(e.inputs[1].name, "B");
  EXPECT_EQ(e.inputs[1].labels, (Labels{"j", "k"}));
  EXPECT_EQ(e.agg, AggOp::Sum);
  EXPECT_EQ(e.agg_labels, (Labels{"j"}));
  EXPECT_TRUE(e.join.is_product());
  EXPECT_DOUBLE_EQ(e.join.eval(3, 4), 12);
  EXPECT_EQ(e.all_labels(), (Labels{"i", "k", "j"}));
  // Names are located: B is at offset 24 of the statement.
  EXPECT_EQ(e.inputs[1].loc.column, kWhere.column + 24);
  EXPECT_EQ(e.inputs[1].loc.line, 4);
  EXPECT_EQ(e.str(), "C[i,k] = sum_{j} A[i,j] * B[j,k]");
}

// A statement prints as it parses back: a product or quotient on the right
// of * or / keeps its parentheses (a / b * c is (a / b) * c), one on the
// left needs none.
TEST(TraParser, PrintsProductsOnTheRightOfAQuotientInParentheses) {
  EXPECT_EQ(parse_einsum("C[i] = A[i] / (2 * B[i])", kWhere).str(), "C[i] = A[i] / (2 * B[i])");
  EXPECT_EQ(parse_einsum("C[i] = A[i] * (B[i] / 2)", kWhere).str(), "C[i] = A[i] * (B[i] / 2)");
  EXPECT_EQ(parse_einsum("C[i] = (A[i] / 2) * B[i]", kWhere).str(), "C[i] = A[i] / 2 * B[i]");
  // -a * b reads (-a) * b: a negated product is one too.
  EXPECT_EQ(parse_einsum("C[i] = A[i] / -(A[i] * B[i])", kWhere).str(), "C[i] = A[i] / (-A[i] * B[i])");
  const EinSum e = parse_einsum("C[i] = A[i] / (2 * B[i])", kWhere);
  EXPECT_DOUBLE_EQ(e.join.eval(8, 2), 2);  // 8 / (2 * 2), not 8 / 2 * 2
}

TEST(TraParser, EinsteinConventionSumsMissingLabels) {
  // No prefix: labels absent from the output are summed.
  const EinSum e = parse_einsum("C[i,k] = A[i,j] * B[j,k]", kWhere);
  EXPECT_EQ(e.agg, AggOp::Sum);
  EXPECT_EQ(e.agg_labels, (Labels{"j"}));
  // Several aggregated labels, declared in braces, kept in first-seen order.
  const EinSum f = parse_einsum("C[i] = sum_{l,j} A[i,j,l] * B[l,j]", kWhere);
  EXPECT_EQ(f.agg_labels, (Labels{"j", "l"}));
}

TEST(TraParser, MaxOfAbsoluteDifference) {
  const EinSum e = parse_einsum("D[i,k] = max_j abs(X[i,j] - Y[j,k])", kWhere);
  EXPECT_EQ(e.agg, AggOp::Max);
  EXPECT_EQ(e.agg_labels, (Labels{"j"}));
  EXPECT_FALSE(e.join.is_product());
  EXPECT_EQ(e.inputs[0].name, "X");
  EXPECT_EQ(e.inputs[1].name, "Y");
  EXPECT_DOUBLE_EQ(e.join.eval(2, 5), 3);
  EXPECT_DOUBLE_EQ(e.join.eval(5, 2), 3);
  EXPECT_EQ(e.join.flops_per_eval(), 2);  // one subtraction, one abs
}

// A loop's work counts a function of the math library as the plain
// operations its time is worth (measured on the VM: tanh ran at 11 times an
// estimate of one operation). A host's weights; a CUDA build counts each
// function once.
#if !defined(KOKKOS_ENABLE_CUDA)
TEST(TraParser, FunctionsCountTheOperationsTheirTimeIsWorth) {
  const auto flops = [](const std::string& st) { return parse_einsum(st, kWhere).join.flops_per_eval(); };
  EXPECT_EQ(flops("Z[i] = X[i] * Y[i] + 1"), 2);
  EXPECT_EQ(flops("Z[i] = tanh(X[i])"), 6);
  EXPECT_EQ(flops("Z[i] = exp(X[i] - Y[i])"), 5);
  EXPECT_EQ(flops("Z[i] = softplus(X[i])"), 8);
  EXPECT_EQ(flops("Z[i] = X[i] ^ 1.5"), 8);
  EXPECT_EQ(flops("Z[i] = relu(X[i])"), 1);
  EXPECT_EQ(flops("Z[i] = X[i]"), 0);
}
#endif

TEST(TraParser, ElementwiseWithBroadcastInput) {
  // Every input label is in the output: nothing is aggregated.
  const EinSum e = parse_einsum("E[i,j] = exp(X[i,j] - M[i])", kWhere);
  EXPECT_EQ(e.agg, AggOp::None);
  EXPECT_TRUE(e.agg_labels.empty());
  EXPECT_EQ(e.inputs[1].labels, (Labels{"i"}));
  EXPECT_DOUBLE_EQ(e.join.eval(2, 0.5), std::exp(1.5));
  EXPECT_EQ(e.join.inputs_used(), 2);
}

TEST(TraParser, UnaryFunction) {
  const EinSum e = parse_einsum("Y[i,j] = relu(X[i,j])", kWhere);
  ASSERT_EQ(e.inputs.size(), 1u);
  EXPECT_EQ(e.agg, AggOp::None);
  EXPECT_EQ(e.join.inputs_used(), 1);
  EXPECT_DOUBLE_EQ(e.join.eval(-3, 0), 0);
  EXPECT_DOUBLE_EQ(e.join.eval(2.5, 0), 2.5);
}

TEST(TraParser, SquaredDifference) {
  const EinSum e = parse_einsum("D[i,k] = sum_j (X[i,j] - Y[j,k])^2", kWhere);
  EXPECT_EQ(e.agg, AggOp::Sum);
  EXPECT_EQ(e.agg_labels, (Labels{"j"}));
  EXPECT_FALSE(e.join.is_product());
  EXPECT_DOUBLE_EQ(e.join.eval(5, 2), 9);
  EXPECT_DOUBLE_EQ(e.join.eval(-1, 2), 9);
  // ^3 goes through pow.
  EXPECT_DOUBLE_EQ(parse_einsum("Z[i] = X[i]^3", kWhere).join.eval(2, 0), 8);
}

TEST(TraParser, ConstantsAndPrecedence) {
  const EinSum e = parse_einsum("Z[i] = 2.5 * X[i] + 1", kWhere);
  EXPECT_EQ(e.agg, AggOp::None);
  ASSERT_EQ(e.inputs.size(), 1u);
  EXPECT_DOUBLE_EQ(e.join.eval(2, 0), 6);  // (2.5 * 2) + 1, not 2.5 * (2 + 1)
  EXPECT_DOUBLE_EQ(parse_einsum("Z[i] = 1 - X[i] / 4", kWhere).join.eval(2, 0), 0.5);
  EXPECT_DOUBLE_EQ(parse_einsum("Z[i] = -X[i] + max(X[i], 0)", kWhere).join.eval(-2, 0), 2);
  // A repeated tensor reference reads the same input slot.
  const EinSum sq = parse_einsum("Z[i] = X[i] * X[i]", kWhere);
  EXPECT_EQ(sq.inputs.size(), 1u);
  EXPECT_DOUBLE_EQ(sq.join.eval(3, 0), 9);
}

TEST(TraParser, NumpyForm) {
  const EinSum e = parse_einsum("C = einsum(\"ij,jk->ik\", A, B)", kWhere);
  EXPECT_EQ(e.output.name, "C");
  EXPECT_EQ(e.output.labels, (Labels{"i", "k"}));
  ASSERT_EQ(e.inputs.size(), 2u);
  EXPECT_EQ(e.inputs[0].name, "A");
  EXPECT_EQ(e.inputs[0].labels, (Labels{"i", "j"}));
  EXPECT_EQ(e.inputs[1].labels, (Labels{"j", "k"}));
  EXPECT_EQ(e.agg, AggOp::Sum);
  EXPECT_EQ(e.agg_labels, (Labels{"j"}));
  EXPECT_TRUE(e.join.is_product());
  // B is written at offset 27.
  EXPECT_EQ(e.inputs[1].loc.column, kWhere.column + 27);
}

TEST(TraParser, NumpyImplicitOutput) {
  // numpy's rule: the labels that appear once, in alphabetical order.
  const EinSum e = parse_einsum("C = einsum(\"ij,jk\", A, B)", kWhere);
  EXPECT_EQ(e.output.labels, (Labels{"i", "k"}));
  EXPECT_EQ(e.agg_labels, (Labels{"j"}));
  EXPECT_EQ(e.agg, AggOp::Sum);
  // "ji" alone is a transpose: its output is "ij", nothing is summed.
  const EinSum t = parse_einsum("T = einsum('ji', A)", kWhere);
  EXPECT_EQ(t.output.labels, (Labels{"i", "j"}));
  EXPECT_EQ(t.agg, AggOp::None);
  EXPECT_TRUE(t.join.is_identity());
  // "ij,ij": every label twice, the output is a scalar.
  const EinSum dot = parse_einsum("s = einsum(\"ij,ij\", A, B)", kWhere);
  EXPECT_TRUE(dot.output.labels.empty());
  EXPECT_EQ(dot.agg_labels, (Labels{"i", "j"}));
}

TEST(TraParser, ScalarFunction) {
  using tra::einsum::parse_scalar_function;
  EXPECT_DOUBLE_EQ(parse_scalar_function("relu(x)", kWhere).eval(-1, 0), 0);
  EXPECT_DOUBLE_EQ(parse_scalar_function("2*x + 1", kWhere).eval(3, 0), 7);
  EXPECT_DOUBLE_EQ(parse_scalar_function("sigmoid(x)", kWhere).eval(0, 0), 0.5);
  EXPECT_THROW(parse_scalar_function("relu(A[i])", kWhere), tra::UserError);
}

TEST(TraParser, NumpyOutputLabelsMustBeDistinct) { EXPECT_THROW(parse_einsum("C = einsum('ij->ii', A)", kWhere), tra::UserError); }

// ---- errors: file:line:column of the offending character, and what is wrong.

TEST(TraParserErrors, BroadcastingOutputLabel) {
  // 'z' is in no input; the error points at the output tensor (offset 0).
  const std::string msg = error_of("C[i,z] = sum_j A[i,j] * B[j]");
  EXPECT_EQ(msg.rfind(at(0), 0), 0u) << msg;
  EXPECT_NE(msg.find("output label 'z' appears in no input"), std::string::npos) << msg;
}

TEST(TraParserErrors, UnknownFunction) {
  const std::string text = "Y[i,j] = foo(X[i,j])";
  const std::string msg = error_of(text);
  EXPECT_EQ(msg.rfind(at(text.find("foo")), 0), 0u) << msg;
  EXPECT_NE(msg.find("unknown function 'foo'"), std::string::npos) << msg;
}

TEST(TraParserErrors, ThreeInputs) {
  const std::string text = "D[i] = A[i] * B[i] * C[i]";
  const std::string msg = error_of(text);
  EXPECT_EQ(msg.rfind(at(text.find("C[i]")), 0), 0u) << msg;
  EXPECT_NE(msg.find("at most two input tensors"), std::string::npos) << msg;
  // The numpy form says the same about its subscripts string.
  const std::string np = "D = einsum(\"i,i,i->i\", A, B, C)";
  const std::string msg2 = error_of(np);
  EXPECT_EQ(msg2.rfind(at(np.find('"')), 0), 0u) << msg2;
}

TEST(TraParserErrors, WrongDeclaredAggregationLabels) {
  // k is an output label; the summed label is j.
  const std::string text = "C[i,k] = sum_k A[i,j] * B[j,k]";
  const std::string msg = error_of(text);
  EXPECT_EQ(msg.rfind(at(text.find("sum_k")), 0), 0u) << msg;
  EXPECT_NE(msg.find("aggregation names labels {k} but the labels absent from the output are {j}"), std::string::npos) << msg;
}

TEST(TraParserErrors, UnterminatedString) {
  const std::string text = "C = einsum(\"ij,jk->ik, A, B)";
  const std::string msg = error_of(text);
  EXPECT_EQ(msg.rfind(at(text.find('"')), 0), 0u) << msg;
  EXPECT_NE(msg.find("unterminated string"), std::string::npos) << msg;
}

TEST(TraParserErrors, OtherMistakesAreLocated) {
  std::string text = "C[i,k] = A[i,j] * B[j,k] $";
  EXPECT_EQ(error_of(text).rfind(at(text.find('$')), 0), 0u);
  text = "C[i,i] = A[i,i]";
  EXPECT_NE(error_of(text).find("label 'i' repeated"), std::string::npos);
  EXPECT_EQ(error_of(text).rfind(at(4), 0), 0u);  // the repeat: the second label of C
  text = "C[i] = A";
  EXPECT_NE(error_of(text).find("needs its labels"), std::string::npos);
  EXPECT_EQ(error_of(text).rfind(at(7), 0), 0u);
  text = "C[i] A[i]";
  EXPECT_EQ(error_of(text).rfind(at(5), 0), 0u);  // '=' expected where A is
  text = "C[i] = einsum(\"ij->i\", A, B)";
  EXPECT_EQ(error_of(text).rfind(at(text.find(", B")), 0), 0u);  // one subscript group, two tensors
}

TEST(TraParserErrors, ExpressionTooDeepForTheEvaluationStack) {
  // "1+(1+(...(1+X[i])))" with n ones keeps n + 1 values pending before the
  // first '+': ScalarProgram::eval holds at most kMaxStack (16) of them.
  auto nested = [](int n) {
    std::string text = "Z[i] = ";
    for (int k = 0; k < n; ++k) text += "1+(";
    text += "X[i]";
    text += std::string(static_cast<size_t>(n), ')');
    return text;
  };
  const EinSum ok = parse_einsum(nested(15), kWhere);
  EXPECT_DOUBLE_EQ(ok.join.eval(2, 0), 17);
  const std::string msg = error_of(nested(16));
  EXPECT_NE(msg.find("nested too deeply"), std::string::npos) << msg;
}

TEST(TraParserErrors, NumberOutOfRange) {
  const std::string text = "Z[i] = 1e999 * X[i]";
  const std::string msg = error_of(text);
  EXPECT_EQ(msg.rfind(at(text.find("1e999")), 0), 0u) << msg;
}
