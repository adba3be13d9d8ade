// Each compiled form of einsum/compiled_forms.hpp against the interpreter it
// stands in for: the same bits for every pair of inputs (zeros of both
// signs, infinities, NaN, large, small and random values) on double and
// float, one element at a time and a host block at a time; the parser
// writes each form's program for its text (so a change in the parser cannot
// silently send a form back to the interpreter); and a program one
// operation or one input away from a form is not taken for it.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/element_data.hpp"
#include "support/form_program.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/einsum/scalar_expr.hpp"
#include "tra/kernels/element_evaluators.hpp"

namespace einsum = tra::einsum;
namespace forms = tra::einsum::forms;
using tra::kernels::Compiled;
using tra::testing::same_value;

namespace {

const tra::SourceLoc kWhere{"test", 1, 1};

template <class T>
std::vector<T> test_values() {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> v{T(0), -T(0), T(1), T(-1), T(0.5), T(2.5), T(-3.75), T(1e30), T(-1e-30), inf, -inf, nan, T(40), T(-40)};
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u(-4, 4);
  for (int i = 0; i < 24; ++i) v.push_back(static_cast<T>(u(gen)));
  return v;
}

template <class F, class T>
void expect_form_equals_interpreter() {
  const double c[einsum::kFormConsts] = {0.9, 1e-8};  // neither exact in float: the rounding to T is checked too
  const einsum::ScalarProgram p = tra::testing::form_program<F>(c);
  double read[einsum::kFormConsts] = {};
  ASSERT_TRUE(einsum::is_form<F>(p, read)) << F::text;
  ASSERT_STREQ(einsum::compiled_form(p), F::text);
  Compiled<F, T> e;
  for (int i = 0; i < einsum::kFormConsts; ++i) e.c[i] = static_cast<T>(read[i]);
  const std::vector<T> v = test_values<T>();
  std::vector<T> a, b;
  for (T x : v)
    for (T y : v) a.push_back(x), b.push_back(y);
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_TRUE(same_value(e(a[i], b[i]), p.eval_as<T>(a[i], b[i]))) << F::text << " at x = " << a[i] << ", y = " << b[i];
  // Host blocks, against the interpreter's blocks, with and without a second input.
  for (size_t s = 0; s < a.size(); s += einsum::ScalarProgram::kBlock) {
    const int n = static_cast<int>(std::min<size_t>(einsum::ScalarProgram::kBlock, a.size() - s));
    for (const bool two : {true, false}) {
      std::vector<T> got(static_cast<size_t>(n)), want(static_cast<size_t>(n));
      e.block(a.data() + s, two ? b.data() + s : nullptr, got.data(), n);
      p.eval_block(a.data() + s, two ? b.data() + s : nullptr, want.data(), n);
      for (int i = 0; i < n; ++i) ASSERT_TRUE(same_value(got[i], want[i])) << F::text << " block element " << s + i << (two ? "" : " (no y)");
    }
  }
}

template <class... F>
void every_form_equals_interpreter(std::tuple<F...>*) {
  (expect_form_equals_interpreter<F, double>(), ...);
  (expect_form_equals_interpreter<F, float>(), ...);
}

// A form's text with constants put in: "x * a + y * b" -> "X[i] * 0.9 + Y[i] * 0.1".
// (Only letters standing alone: the x of "exp" stays.)
std::string statement_for(const std::string& text) {
  std::string out = "Z[i] = ";
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    const bool alone = (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]))) &&
                       (i + 1 == text.size() || !std::isalnum(static_cast<unsigned char>(text[i + 1])));
    if (alone && ch == 'x') out += "X[i]";
    else if (alone && ch == 'y') out += "Y[i]";
    else if (alone && ch == 'a') out += "0.9";
    else if (alone && ch == 'b') out += "0.1";
    else out += ch;
  }
  return out;
}

template <class... F>
std::vector<std::string> texts(std::tuple<F...>*) {
  return {F::text...};
}

std::vector<std::string> form_texts() { return texts(static_cast<forms::All*>(nullptr)); }

}  // namespace

TEST(CompiledForms, EveryFormEqualsTheInterpreterBitForBit) { every_form_equals_interpreter(static_cast<forms::All*>(nullptr)); }

TEST(CompiledForms, TheParserWritesEachFormsProgramForItsText) {
  for (const std::string& text : form_texts()) {
    // The parser names a statement's inputs in the order they appear: "y * x"
    // comes from the gradient pass's expressions (autodiff/), written here as one.
    if (text == forms::ProductYX::text) {
      einsum::ScalarExpr e;
      EXPECT_STREQ(einsum::compiled_form(*e.program(e.apply(einsum::Op::Mul, e.var(1), e.var(0)), {0, 1})), forms::ProductYX::text);
      continue;
    }
    const std::string st = statement_for(text);
    const einsum::ScalarProgram p = einsum::parse_einsum(st, kWhere).join;
    const char* form = einsum::compiled_form(p);
    ASSERT_NE(form, nullptr) << st << " parsed as " << p.str() << ", which no form matches";
    EXPECT_EQ(std::string(form), text) << st;
  }
}

TEST(CompiledForms, AProgramAnOperationOrAnInputAwayIsInterpreted) {
  for (const char* st : {"Z[i] = X[i] + Y[i] + 1", "Z[i] = X[i] + X[i]", "Z[i] = 2 / X[i]", "Z[i] = X[i] * 0.9 + Y[i] * 0.1 + 1",
                         "Z[i] = (X[i] - Y[i]) * (X[i] - Y[i])", "Z[i] = relu(X[i] - Y[i])", "Z[i] = X[i] * (Y[i] * 2)", "Z[i] = max(X[i], Y[i])",
                         "Z[i] = 0.001 * Y[i] * Y[i] + X[i] * 0.999"}) {
    const einsum::ScalarProgram p = einsum::parse_einsum(st, kWhere).join;
    EXPECT_EQ(einsum::compiled_form(p), nullptr) << st << " parsed as " << p.str() << " was taken for " << einsum::compiled_form(p);
  }
}
