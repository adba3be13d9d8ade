// Reductions fold as a tree of width 32 in one documented order:
// the host form and the device form (what a GPU runs, run here on the
// host) give the same bits, the order is the documented one (a plain loop
// written here gives the same bits), and the result is within depth·31·eps of an
// extended-precision sum, on double and on float elements. A float program
// rounds every step to float, on the host's blocks as per element.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "support/element_data.hpp"
#include "support/tolerance.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/kernels/elementwise.hpp"
#include "tra/kernels/tree_fold.hpp"

namespace kernels = tra::kernels;
using tra::ChunkData;
using tra::Index;
using tra::testing::filled;
using tra::testing::values;

namespace {

// x is rows × cols, row-major.
struct Reduction {
  kernels::Walk out, inner;
  Index outputs;
};

Reduction over_columns(Index rows, Index cols) {  // z[r] = sum_c f(x[r, c])
  Reduction r;
  r.out.rank = 1, r.out.extent[0] = rows, r.out.stride_a[0] = cols, r.out.stride_c[0] = 1;
  r.inner.rank = 1, r.inner.extent[0] = cols, r.inner.stride_a[0] = 1;
  r.outputs = rows;
  return r;
}

Reduction over_rows(Index rows, Index cols) {  // z[c] = sum_r f(x[r, c]): the host's by-columns loop
  Reduction r;
  r.out.rank = 1, r.out.extent[0] = cols, r.out.stride_a[0] = 1, r.out.stride_c[0] = 1;
  r.inner.rank = 1, r.inner.extent[0] = rows, r.inner.stride_a[0] = cols;
  r.outputs = cols;
  return r;
}

Reduction over_all(Index rows, Index cols) {  // z = sum_{r,c} f(x[r, c])
  Reduction r;
  r.inner.rank = 2, r.inner.extent[0] = rows, r.inner.extent[1] = cols, r.inner.stride_a[0] = cols, r.inner.stride_a[1] = 1;
  r.outputs = 1;
  return r;
}

// The documented order, written out: groups of 32 consecutive values, each
// summed from 0 in order, level by level until 32 or fewer remain, which
// are summed from 0 in order.
template <class T>
T tree_sum(std::vector<T> v) {
  while (v.size() > 32) {
    std::vector<T> up;
    for (size_t g = 0; g < v.size(); g += 32) {
      T s = 0;
      for (size_t i = g; i < std::min(v.size(), g + 32); ++i) s += v[i];
      up.push_back(s);
    }
    v = up;
  }
  T s = 0;
  for (T x : v) s += x;
  return s;
}

// x * x + 0.125 * x, each step rounded to T, as the program below computes it.
template <class T>
T square_plus_eighth(T v) {
  const T sq = v * v;
  const T eighth = T(0.125) * v;
  return sq + eighth;
}

template <class T>
void reductions_fold_in_the_documented_order() {
  const Index rows = 37, cols = 1000;  // 1000 = 31 full groups of 32 and a part; 37,000 = three levels
  std::mt19937_64 gen(4);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> x(static_cast<size_t>(rows * cols));
  for (T& v : x) v = static_cast<T>(u(gen));
  const tra::ElementData<T> xd = filled(x);
  const auto f = tra::einsum::parse_scalar_function("x * x + 0.125 * x", {"test", 1, 1});
  for (const Reduction& r : {over_columns(rows, cols), over_rows(rows, cols), over_all(rows, cols)}) {
    tra::ElementData<T> host("host", static_cast<size_t>(r.outputs)), device("device", static_cast<size_t>(r.outputs));
    kernels::eval_reduce("test", f, tra::einsum::AggOp::Sum, r.out, r.inner, xd, tra::ElementData<T>(), host);
    kernels::eval_reduce_device_form("test", f, tra::einsum::AggOp::Sum, r.out, r.inner, xd, tra::ElementData<T>(), device);
    const std::vector<T> h = values(host), d = values(device);
    for (Index p = 0; p < r.outputs; ++p) {
      Index ox, oy, oz;
      r.out.offsets(p, ox, oy, oz);
      const Index n = r.inner.count();
      std::vector<T> terms;
      long double exact = 0;
      double magnitude = 0;
      for (Index q = 0; q < n; ++q) {
        Index ax, ay, az;
        r.inner.offsets(q, ax, ay, az);
        terms.push_back(square_plus_eighth(x[static_cast<size_t>(ox + ax)]));
        exact += static_cast<long double>(terms.back());
        magnitude += std::fabs(static_cast<double>(terms.back()));
      }
      const T acc = tree_sum(terms);
      ASSERT_EQ(h[static_cast<size_t>(oz)], acc) << "output " << p << ": the host form is not the documented order";
      ASSERT_EQ(d[static_cast<size_t>(oz)], acc) << "output " << p << ": the device form is not the documented order";
      // A term meets at most 31 roundings per level of the tree (2 levels
      // for 1000 terms, 3 for 37,000): the bound grows with the depth, not n.
      const int depth = 1 + kernels::fold_levels(n);
      EXPECT_LE(std::fabs(static_cast<double>(acc) - static_cast<double>(exact)),
                tra::testing::tree_sum_tolerance(depth, kernels::kFoldWidth, magnitude, std::numeric_limits<T>::epsilon()));
    }
  }
}

}  // namespace

TEST(Reduce, HostAndDeviceFormsAgreeBitForBitInTheDocumentedOrder) { reductions_fold_in_the_documented_order<double>(); }

TEST(Reduce, FloatReductionsFoldInFloatInTheDocumentedOrder) { reductions_fold_in_the_documented_order<float>(); }

// A float program rounds every step to float: the host's blocks
// (eval_block) and one element at a time (eval_as, what a device runs) give
// the bits of the same steps written out in float here, with the constant
// rounded to float once; and they differ from the double program's results
// by float rounding only.
TEST(Elementwise, FloatProgramsRoundEveryStepToFloat) {
  const auto f = tra::einsum::parse_einsum("Z[i] = exp(X[i]) * Y[i] - sqrt(abs(X[i])) / (1.1 + Y[i] * Y[i])", {"test", 1, 1}).join;
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(-3, 3);
  const size_t n = 1000;  // blocks of 256 and a part
  std::vector<float> x(n), y(n);
  std::vector<double> xd(n), yd(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(u(gen)), y[i] = static_cast<float>(u(gen));
    xd[i] = x[i], yd[i] = y[i];
  }
  tra::ElementData<float> z("z", n);
  tra::ElementData<double> zd("zd", n);
  kernels::eval_elements("test", f, filled(x), filled(y), z);
  kernels::eval_elements("test", f, filled(xd), filled(yd), zd);
  const std::vector<float> got = values(z);
  const std::vector<double> wide = values(zd);
  int rounded_apart = 0;  // elements where float steps and one rounding of the double result differ
  for (size_t i = 0; i < n; ++i) {
    const float e = std::exp(x[i]), p = e * y[i], s = std::sqrt(std::fabs(x[i])), yy = y[i] * y[i], q = 1.1f + yy, r = p - s / q;
    ASSERT_EQ(got[i], r) << "element " << i << ": the host's float blocks";
    ASSERT_EQ(f.eval_as<float>(x[i], y[i]), r) << "element " << i << ": one element at a time";
    // Six roundings to float of values at most |p| + |s / q| in size.
    EXPECT_LE(std::fabs(static_cast<double>(got[i]) - wide[i]),
              6 * FLT_EPSILON * (std::fabs(static_cast<double>(p)) + std::fabs(static_cast<double>(s / q))))
        << "element " << i;
    rounded_apart += r != static_cast<float>(wide[i]);
  }
  // Else a program computed in double and rounded at the end would pass.
  EXPECT_GT(rounded_apart, 0);
}

// 32 values or fewer are folded plainly in the order of the inner positions.
TEST(Reduce, ShortReductionsKeepThePlainOrder) {
  std::vector<double> x(static_cast<size_t>(kernels::kFoldWidth));
  for (size_t i = 0; i < x.size(); ++i) x[i] = 1.0 / static_cast<double>(i + 3);
  const ChunkData xd = filled(x);
  const auto f = tra::einsum::parse_scalar_function("x", {"test", 1, 1});
  const Reduction r = over_all(1, kernels::kFoldWidth);
  ChunkData z("z", 1);
  kernels::eval_reduce("test", f, tra::einsum::AggOp::Sum, r.out, r.inner, xd, ChunkData(), z);
  double plain = 0;
  for (double v : x) plain += v;
  EXPECT_EQ(values(z)[0], plain);
}

// Every length around the tree's group and level boundaries, with max as
// well as sum: the host's streamed tree (one output at a time and by
// columns) and the device's level-at-a-time kernels give the written-out
// order's bits.
TEST(Reduce, EveryLengthAroundTheGroupBoundariesFoldsAlike) {
  const auto f = tra::einsum::parse_scalar_function("x", {"test", 1, 1});
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (Index n : {0, 1, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 1056, 32768, 32769, 33825}) {
    std::vector<double> x(static_cast<size_t>(n) * 9);
    for (double& v : x) v = u(gen);
    const ChunkData xd = filled(x);
    for (const Reduction& r : {over_rows(n, 9), over_columns(9, n)}) {
      for (auto agg : {tra::einsum::AggOp::Sum, tra::einsum::AggOp::Max}) {
        ChunkData host("host", 9), device("device", 9);
        kernels::eval_reduce("test", f, agg, r.out, r.inner, xd, ChunkData(), host);
        kernels::eval_reduce_device_form("test", f, agg, r.out, r.inner, xd, ChunkData(), device);
        const std::vector<double> h = values(host), d = values(device);
        for (Index p = 0; p < 9; ++p) {
          std::vector<double> terms;
          double biggest = -HUGE_VAL;
          for (Index q = 0; q < n; ++q) {
            Index ax, ay, az, ox, oy, oz;
            r.out.offsets(p, ox, oy, oz);
            r.inner.offsets(q, ax, ay, az);
            terms.push_back(x[static_cast<size_t>(ox + ax)]);
            biggest = std::max(biggest, terms.back());
          }
          const double want = agg == tra::einsum::AggOp::Sum ? tree_sum(terms) : biggest;
          ASSERT_EQ(h[static_cast<size_t>(p)], want) << "n = " << n << ", output " << p << ": host";
          ASSERT_EQ(d[static_cast<size_t>(p)], want) << "n = " << n << ", output " << p << ": device form";
        }
      }
    }
  }
}
