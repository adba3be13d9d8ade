#include "tra/kernels/scratch.hpp"

#include <algorithm>

namespace tra::kernels {

ChunkData scratch(size_t floats) {
  static ChunkData kept;
  static bool hooked = false;
  if (!hooked) {  // a View must be gone before Kokkos finalizes
    Kokkos::push_finalize_hook([] { kept = ChunkData(); });
    hooked = true;
  }
  if (kept.extent(0) < floats)
    kept = ChunkData(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tra::scratch"), std::max(floats, 2 * kept.extent(0)));
  return kept;
}

}  // namespace tra::kernels
