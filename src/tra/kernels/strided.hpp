#pragma once
// Fixed-size index arithmetic shared by the chunk kernels: a POD that a kernel
// captures by value (so it works on a device), mapping a row-major position in
// one shape to offsets in other, differently strided arrays.
#include <type_traits>

#include "tra/common/kokkos_types.hpp"
#include "tra/core/key.hpp"

namespace tra::kernels {

constexpr int kMaxRank = 8;

struct Walk {
  int rank = 0;
  Index extent[kMaxRank] = {};
  Index stride_a[kMaxRank] = {};  // stride of each walked dimension in array a
  Index stride_b[kMaxRank] = {};  // ... in array b
  Index stride_c[kMaxRank] = {};  // ... in array c

  Index count() const {
    Index n = 1;
    for (int d = 0; d < rank; ++d) n *= extent[d];
    return n;
  }
  // Offsets in a, b and c of the row-major position p of the walked shape.
  KOKKOS_INLINE_FUNCTION void offsets(Index p, Index& oa, Index& ob, Index& oc) const {
    oa = ob = oc = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const Index i = p % extent[d];
      p /= extent[d];
      oa += i * stride_a[d];
      ob += i * stride_b[d];
      oc += i * stride_c[d];
    }
  }
};

// Steps through the row-major positions of a Walk's shape from `start`,
// keeping the offsets in a, b and c: an addition per dimension that rolls
// over instead of a division and a remainder per dimension and element
// (host code: a 32 x 32 x 4 x 8 permutation took 25 us with a division per
// dimension and element).
struct Odometer {
  Odometer(const Walk& walk, Index start) : w(walk) {
    for (int d = w.rank - 1; d >= 0; --d) {
      idx[d] = start % w.extent[d];
      start /= w.extent[d];
      a += idx[d] * w.stride_a[d];
      b += idx[d] * w.stride_b[d];
      c += idx[d] * w.stride_c[d];
    }
  }
  void next() {
    for (int d = w.rank - 1; d >= 0; --d) {
      a += w.stride_a[d];
      b += w.stride_b[d];
      c += w.stride_c[d];
      if (++idx[d] < w.extent[d]) return;
      a -= w.extent[d] * w.stride_a[d];
      b -= w.extent[d] * w.stride_b[d];
      c -= w.extent[d] * w.stride_c[d];
      idx[d] = 0;
    }
  }
  const Walk& w;
  Index idx[kMaxRank] = {};
  Index a = 0, b = 0, c = 0;
};

// f(oa, oc) at every position of w: on a host in runs of positions, each
// stepped by an Odometer; on a device a thread per position.
template <class F>
void for_each_position(const char* name, const Walk& w, const F& f) {
  const Index n = w.count();
  if constexpr (std::is_same_v<MemSpace, Kokkos::HostSpace>) {
    constexpr Index kRun = 1024;
    Kokkos::parallel_for(name, RangePolicy(0, (n + kRun - 1) / kRun), [=, &w](const Index run) {
      const Index s = run * kRun, e = s + kRun < n ? s + kRun : n;
      Odometer o(w, s);
      for (Index p = s; p < e; ++p, o.next()) f(o.a, o.c);
    });
  } else {
    Kokkos::parallel_for(
        name, RangePolicy(0, n), KOKKOS_LAMBDA(const Index p) {
          Index oa, ob, oc;
          w.offsets(p, oa, ob, oc);
          f(oa, oc);
        });
  }
}

// Row-major strides of a shape.
Shape row_major_strides(const Shape& shape);

}  // namespace tra::kernels
