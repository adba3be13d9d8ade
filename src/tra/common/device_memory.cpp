#include "tra/common/device_memory.hpp"

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace tra {

std::int64_t device_free_bytes() {
#if defined(KOKKOS_ENABLE_CUDA)
  size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) == cudaSuccess) return static_cast<std::int64_t>(free);
  return 0;  // unknown: nothing may count on it
#else
  return -1;
#endif
}

}  // namespace tra
