// Reductions fold in segments of kSegmentLength in one documented order:
// the host form and the device form (what a GPU runs, run here on the
// host) give the same bits, the order is the documented one (a plain loop
// written here gives the same bits), and the result is within K·eps of an
// extended-precision sum.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <random>
#include <vector>

#include "tra/einsum/parser.hpp"
#include "tra/kernels/elementwise.hpp"

namespace kernels = tra::kernels;
using tra::ChunkData;
using tra::Index;

namespace {

ChunkData filled(const std::vector<double>& v) {
  ChunkData d("x", v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

std::vector<double> values(const ChunkData& d) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

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

}  // namespace

TEST(Reduce, HostAndDeviceFormsAgreeBitForBitInTheDocumentedOrder) {
  const Index rows = 37, cols = 1000;  // 1000 = 3 full segments of 256 and a part
  std::mt19937_64 gen(4);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x(static_cast<size_t>(rows * cols));
  for (double& v : x) v = u(gen);
  const ChunkData xd = filled(x);
  const auto f = tra::einsum::parse_scalar_function("x * x + 0.125 * x", {"test", 1, 1});
  const auto fx = [](double v) { return v * v + 0.125 * v; };
  for (const Reduction& r : {over_columns(rows, cols), over_rows(rows, cols), over_all(rows, cols)}) {
    ChunkData host("host", static_cast<size_t>(r.outputs)), device("device", static_cast<size_t>(r.outputs));
    kernels::eval_reduce("test", f, tra::einsum::AggOp::Sum, r.out, r.inner, xd, ChunkData(), host);
    kernels::eval_reduce_device_form("test", f, tra::einsum::AggOp::Sum, r.out, r.inner, xd, ChunkData(), device);
    const std::vector<double> h = values(host), d = values(device);
    for (Index p = 0; p < r.outputs; ++p) {
      // The documented order, written out: segments of kSegmentLength, each from 0.
      Index ox, oy, oz;
      r.out.offsets(p, ox, oy, oz);
      const Index n = r.inner.count();
      double acc = 0;
      long double exact = 0;
      double magnitude = 0;
      for (Index q0 = 0; q0 < n; q0 += kernels::kSegmentLength) {
        double seg = 0;
        for (Index q = q0; q < std::min(n, q0 + kernels::kSegmentLength); ++q) {
          Index ax, ay, az;
          r.inner.offsets(q, ax, ay, az);
          const double v = fx(x[static_cast<size_t>(ox + ax)]);
          seg += v;
          exact += static_cast<long double>(v);
          magnitude += std::fabs(v);
        }
        acc += seg;
      }
      ASSERT_EQ(h[static_cast<size_t>(oz)], acc) << "output " << p << ": the host form is not the documented order";
      ASSERT_EQ(d[static_cast<size_t>(oz)], acc) << "output " << p << ": the device form is not the documented order";
      EXPECT_LE(std::fabs(acc - static_cast<double>(exact)), static_cast<double>(n) * DBL_EPSILON * magnitude);
    }
  }
}

// One segment or less is folded plainly in the order of the inner positions.
TEST(Reduce, ShortReductionsKeepThePlainOrder) {
  std::vector<double> x(static_cast<size_t>(kernels::kSegmentLength));
  for (size_t i = 0; i < x.size(); ++i) x[i] = 1.0 / static_cast<double>(i + 3);
  const ChunkData xd = filled(x);
  const auto f = tra::einsum::parse_scalar_function("x", {"test", 1, 1});
  const Reduction r = over_all(1, kernels::kSegmentLength);
  ChunkData z("z", 1);
  kernels::eval_reduce("test", f, tra::einsum::AggOp::Sum, r.out, r.inner, xd, ChunkData(), z);
  double plain = 0;
  for (double v : x) plain += v;
  EXPECT_EQ(values(z)[0], plain);
}
