#include "tra/kernels/finite.hpp"

#include <type_traits>

#include "tra/common/kokkos_math.hpp"

namespace tra::kernels {

namespace {

template <class T>
Index nonfinite_elements(const ElementData<T>& d) {
  Index count = 0;
  Kokkos::parallel_reduce(
      "tra::nonfinite_count", RangePolicy(0, static_cast<Index>(d.extent(0))),
      KOKKOS_LAMBDA(const Index i, Index& n) { n += kmath::isfinite(d(i)) ? 0 : 1; }, count);
  return count;
}

}  // namespace

Index nonfinite_count(const Chunk& c) {
  return with_elements(c, [](const auto& d) { return nonfinite_elements<typename std::decay_t<decltype(d)>::value_type>(d); });
}

}  // namespace tra::kernels
