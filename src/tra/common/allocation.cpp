#include "tra/common/allocation.hpp"

#include <cstdlib>  // defines __GLIBC__ where glibc is the C library

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tra {

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);  // large blocks from the heap, not from fresh mappings
  mallopt(M_TRIM_THRESHOLD, -1);  // and the heap's free top is never handed back (mallopt(3): -1 disables trimming)
#endif
}

}  // namespace tra
