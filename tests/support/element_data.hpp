#pragma once
// Element data to and from a kernel test: a flat View filled from a host
// vector and read back, in whatever memory the build's chunks live in; and
// results compared bit for bit.
#include <cmath>
#include <cstring>
#include <vector>

#include "tra/common/kokkos_types.hpp"

namespace tra::testing {

template <class T>
ElementData<T> filled(const std::vector<T>& v) {
  ElementData<T> d("x", v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

template <class T>
std::vector<T> values(const ElementData<T>& d) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  return std::vector<T>(h.data(), h.data() + h.extent(0));
}

// Equal bits, or both NaN (a NaN's payload is the hardware's choice).
template <class T>
bool same_value(T a, T b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace tra::testing
