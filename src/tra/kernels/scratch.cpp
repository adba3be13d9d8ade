#include "tra/kernels/scratch.hpp"

#include <algorithm>

namespace tra::kernels {

template <class T>
ElementData<T> scratch(size_t n) {
  static ElementData<T> kept;
  static bool hooked = false;
  if (!hooked) {  // a View must be gone before Kokkos finalizes
    Kokkos::push_finalize_hook([] { kept = ElementData<T>(); });
    hooked = true;
  }
  if (kept.extent(0) < n) kept = ElementData<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tra::scratch"), std::max(n, 2 * kept.extent(0)));
  return kept;
}

template ElementData<double> scratch<double>(size_t);
template ElementData<float> scratch<float>(size_t);

}  // namespace tra::kernels
