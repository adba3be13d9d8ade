#include "tra/kernels/elementwise.hpp"

#include <algorithm>
#include <type_traits>

namespace tra::kernels {

namespace {

template <class Space>
void run(const char* name, const einsum::ScalarProgram& prog, const ChunkData& x, const ChunkData& y, const ChunkData& z) {
  const Index n = static_cast<Index>(z.extent(0));
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::HostSpace>) {
    constexpr Index kBlock = einsum::ScalarProgram::kBlock;
    const Scalar* xp = x.data();
    const Scalar* yp = y.extent(0) ? y.data() : nullptr;
    Scalar* zp = z.data();
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, (n + kBlock - 1) / kBlock), [=](const Index blk) {
      const Index s = blk * kBlock;
      prog.eval_block(xp + s, yp ? yp + s : nullptr, zp + s, static_cast<int>(std::min(kBlock, n - s)));
    });
  } else {
    const bool two = y.extent(0) != 0;
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, n), KOKKOS_LAMBDA(const Index i) {
      z(i) = prog.eval(x(i), two ? y(i) : Scalar(0));
    });
  }
}

template <class Space>
void run_walk(const char* name, const einsum::ScalarProgram& prog, const Walk& w, const ChunkData& x, const ChunkData& y,
              const ChunkData& z) {
  const Index n = w.count();
  const bool two = y.extent(0) != 0;
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::HostSpace>) {
    constexpr Index kBlock = einsum::ScalarProgram::kBlock;
    const Scalar* xp = x.data();
    const Scalar* yp = two ? y.data() : nullptr;
    Scalar* zp = z.data();
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, (n + kBlock - 1) / kBlock), [=](const Index blk) {
      const Index s = blk * kBlock;
      const int m = static_cast<int>(std::min(kBlock, n - s));
      // The multi-index of position s and its offsets, then stepped.
      Index idx[kMaxRank] = {}, oa = 0, ob = 0;
      for (Index p = s, d = w.rank - 1; d >= 0; --d) {
        idx[d] = p % w.extent[d];
        p /= w.extent[d];
        oa += idx[d] * w.stride_a[d];
        ob += idx[d] * w.stride_b[d];
      }
      Scalar a[kBlock], b[kBlock];
      for (int i = 0; i < m; ++i) {
        a[i] = xp[oa];
        b[i] = two ? yp[ob] : Scalar(0);
        for (int d = w.rank - 1; d >= 0; --d) {
          oa += w.stride_a[d];
          ob += w.stride_b[d];
          if (++idx[d] < w.extent[d]) break;
          oa -= w.extent[d] * w.stride_a[d];
          ob -= w.extent[d] * w.stride_b[d];
          idx[d] = 0;
        }
      }
      prog.eval_block(a, b, zp + s, m);
    });
  } else {
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, n), KOKKOS_LAMBDA(const Index p) {
      Index oa, ob, oc;
      w.offsets(p, oa, ob, oc);
      z(oc) = prog.eval(x(oa), two ? y(ob) : Scalar(0));
    });
  }
}

}  // namespace

void eval_walk(const char* name, const einsum::ScalarProgram& prog, const Walk& walk, const ChunkData& x, const ChunkData& y,
               const ChunkData& z) {
  run_walk<ExecSpace>(name, prog, walk, x, y, z);
}

void eval_elements(const char* name, const einsum::ScalarProgram& prog, const ChunkData& x, const ChunkData& y, const ChunkData& z) {
  run<ExecSpace>(name, prog, x, y, z);
}

}  // namespace tra::kernels
