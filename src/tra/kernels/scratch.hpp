#pragma once
// Scratch memory for a kernel's intermediate values (a reduction's group
// results), kept between kernels and grown by doubling: on a GPU each fresh
// allocation is a cudaMalloc, which can cost more than the kernel. Kernels
// run one after another on the execution space's one stream, so a later
// kernel's use of the buffer starts after the earlier one's ends; a caller
// must not keep it past its own kernels.
#include <cstddef>

#include "tra/common/kokkos_types.hpp"

namespace tra::kernels {

// At least `n` elements of type T (double or float) of the execution space's
// memory (contents undefined).
template <class T>
ElementData<T> scratch(size_t n);

}  // namespace tra::kernels
