// The element loops run a program with a compiled form as that form, and
// every loop (aligned with and without a second input, broadcasting,
// reductions on the host by rows and by columns, and the device's form) then
// gives the bits the interpreter's element-at-a-time evaluation gives, for
// each form, on double and float, infinities and NaN among the inputs. TRA_ELEMENT_PROGRAMS
// chooses between the two, and a value other than its two is refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "support/element_data.hpp"
#include "support/form_program.hpp"
#include "tra/common/error.hpp"
#include "tra/kernels/element_evaluators.hpp"
#include "tra/kernels/elementwise.hpp"

namespace einsum = tra::einsum;
namespace kernels = tra::kernels;
using tra::Index;
using tra::testing::filled;
using tra::testing::same_value;
using tra::testing::values;

namespace {

// F's program, its first constant not exact in float.
template <class F>
einsum::ScalarProgram program_of() {
  const double c[einsum::kFormConsts] = {0.9, 7.5};
  return tra::testing::form_program<F>(c);
}

// x is rows x cols; y one value per column (a bias), broadcast over rows.
constexpr Index kRows = 20, kCols = 16;

// Random values, with zeros of both signs, infinities, NaN and values
// beyond exp's range among them.
template <class T>
std::vector<T> some_values(size_t n, unsigned seed) {
  const T inf = std::numeric_limits<T>::infinity();
  const T special[] = {T(0), -T(0), inf, -inf, std::numeric_limits<T>::quiet_NaN(), T(100), T(-100), T(1)};
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-3, 3);
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = i % 5 == 0 ? special[(i / 5 + seed) % 8] : static_cast<T>(u(gen));
  return v;
}

template <class F, class T>
void every_loop_gives_the_interpreters_bits() {
  const einsum::ScalarProgram p = program_of<F>();
  const std::vector<T> x = some_values<T>(kRows * kCols, 3), y = some_values<T>(kCols, 4);
  const tra::ElementData<T> xd = filled(x), yd = filled(y);
  auto f = [&](Index r, Index c) { return p.eval_as<T>(x[static_cast<size_t>(r * kCols + c)], y[static_cast<size_t>(c)]); };
  const char* type = sizeof(T) == sizeof(double) ? " (double)" : " (float)";

  kernels::Walk along;  // z[r, c] = f(x[r, c], y[c])
  along.rank = 2, along.extent[0] = kRows, along.extent[1] = kCols;
  along.stride_a[0] = kCols, along.stride_a[1] = 1, along.stride_b[1] = 1, along.stride_c[0] = kCols, along.stride_c[1] = 1;
  tra::ElementData<T> z("z", x.size());
  kernels::eval_walk<T>("test", p, along, xd, yd, z);
  std::vector<T> got = values(z);
  for (Index r = 0; r < kRows; ++r)
    for (Index c = 0; c < kCols; ++c)
      ASSERT_TRUE(same_value(got[static_cast<size_t>(r * kCols + c)], f(r, c))) << F::text << type << " walk " << r << "," << c;

  std::vector<T> y_rows(x.size());  // y[c] repeated on every row, for the aligned loop
  for (size_t i = 0; i < x.size(); ++i) y_rows[i] = y[i % kCols];
  kernels::eval_elements<T>("test", p, xd, filled(y_rows), z);
  got = values(z);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(same_value(got[i], p.eval_as<T>(x[i], y_rows[i]))) << F::text << type << " element " << i;
  kernels::eval_elements<T>("test", p, xd, tra::ElementData<T>(), z);  // no second input: y reads 0
  got = values(z);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(same_value(got[i], p.eval_as<T>(x[i], T(0)))) << F::text << type << " element " << i << " (no y)";

  // Column sums (the host's by-columns loop) and row sums, host and device forms,
  // each of at most 32 terms: folded plainly in order.
  for (const bool by_rows : {true, false}) {
    kernels::Walk out, inner;
    out.rank = inner.rank = 1;
    out.extent[0] = by_rows ? kCols : kRows, inner.extent[0] = by_rows ? kRows : kCols;
    (by_rows ? out : inner).stride_a[0] = 1, (by_rows ? out : inner).stride_b[0] = 1;
    (by_rows ? inner : out).stride_a[0] = kCols;
    out.stride_c[0] = 1;
    tra::ElementData<T> host("host", static_cast<size_t>(out.extent[0])), device("device", static_cast<size_t>(out.extent[0]));
    kernels::eval_reduce<T>("test", p, einsum::AggOp::Sum, out, inner, xd, yd, host);
    kernels::eval_reduce_device_form<T>("test", p, einsum::AggOp::Sum, out, inner, xd, yd, device);
    const std::vector<T> h = values(host), d = values(device);
    for (Index o = 0; o < out.extent[0]; ++o) {
      T want = 0;
      for (Index q = 0; q < inner.extent[0]; ++q) want += by_rows ? f(q, o) : f(o, q);
      ASSERT_TRUE(same_value(h[static_cast<size_t>(o)], want)) << F::text << type << (by_rows ? " column " : " row ") << o << " (host)";
      ASSERT_TRUE(same_value(d[static_cast<size_t>(o)], want)) << F::text << type << (by_rows ? " column " : " row ") << o << " (device form)";
    }
  }
}

template <class... F>
void for_every_form(std::tuple<F...>*) {
  (every_loop_gives_the_interpreters_bits<F, double>(), ...);
  (every_loop_gives_the_interpreters_bits<F, float>(), ...);
}

}  // namespace

TEST(ElementEvaluators, EveryLoopOfEveryFormGivesTheInterpretersBits) {
  ASSERT_TRUE(kernels::compiled_forms_enabled());  // (TRA_ELEMENT_PROGRAMS unset in the tests)
  for_every_form(static_cast<einsum::forms::All*>(nullptr));
}

TEST(ElementEvaluators, AFormsProgramRunsCompiledAndAnyOtherInterpreted) {
  bool compiled = false;
  auto which = [&](const auto& e) { compiled = !std::is_same_v<std::decay_t<decltype(e)>, kernels::Interpreted<double>>; };
  kernels::with_evaluator<double>(program_of<einsum::forms::Blend>(), which);
  EXPECT_TRUE(compiled);
  einsum::ScalarProgram other = program_of<einsum::forms::Blend>();
  other.ops[other.size - 1] = einsum::Op::Sub;
  kernels::with_evaluator<double>(other, which);
  EXPECT_FALSE(compiled);
}

TEST(ElementEvaluators, TheVariableChoosesAndABadValueIsRefusedByName) {
  EXPECT_TRUE(kernels::decide_compiled_forms(nullptr));
  EXPECT_TRUE(kernels::decide_compiled_forms("compiled"));
  EXPECT_FALSE(kernels::decide_compiled_forms("interpreted"));
  try {
    kernels::decide_compiled_forms("yes");
    FAIL() << "TRA_ELEMENT_PROGRAMS=yes was accepted";
  } catch (const tra::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("TRA_ELEMENT_PROGRAMS=yes"), std::string::npos) << e.what();
  }
}
