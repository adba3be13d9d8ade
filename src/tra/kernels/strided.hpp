#pragma once
// Fixed-size index arithmetic shared by the chunk kernels: a POD that a kernel
// captures by value (so it works on a device), mapping a row-major position in
// one shape to offsets in other, differently strided arrays.
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

// Row-major strides of a shape.
Shape row_major_strides(const Shape& shape);

}  // namespace tra::kernels
