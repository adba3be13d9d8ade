#pragma once
// Kokkos moved its device math functions from Kokkos::Experimental (3.x) to
// Kokkos (3.7 and later); kmath names whichever this Kokkos has.
#include <cmath>

#include "tra/common/kokkos_types.hpp"

#if KOKKOS_VERSION >= 30700
namespace kmath = Kokkos;
#else
namespace kmath = Kokkos::Experimental;
#endif
