#include "tra/kernels/finite.hpp"

#include "tra/common/kokkos_math.hpp"

namespace tra::kernels {

Index nonfinite_count(const Chunk& c) {
  const auto d = c.data;
  Index count = 0;
  Kokkos::parallel_reduce(
      "tra::nonfinite_count", RangePolicy(0, c.size()), KOKKOS_LAMBDA(const Index i, Index& n) { n += kmath::isfinite(d(i)) ? 0 : 1; }, count);
  return count;
}

}  // namespace tra::kernels
