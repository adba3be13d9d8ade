#include "tra/common/allocation.hpp"

#include <cstdlib>  // defines __GLIBC__ where glibc is the C library

#if defined(__GLIBC__)
#include <malloc.h>
#include <unistd.h>
#endif

namespace tra {

namespace {
bool freed_memory_kept = false;
}  // namespace

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);  // large blocks from the heap, not from fresh mappings
  mallopt(M_TRIM_THRESHOLD, -1);  // and the heap's free top is never handed back (mallopt(3): -1 disables trimming)
  freed_memory_kept = true;
#endif
}

bool freed_memory_is_kept() { return freed_memory_kept; }

void page_in_heap(std::size_t bytes) {
#if defined(__GLIBC__)
  if (!freed_memory_kept || bytes == 0) return;  // freed, the block would go back to the system
  auto* block = static_cast<volatile char*>(std::malloc(bytes));
  if (!block) return;  // the operators will find out what fits
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  for (std::size_t at = 0; at < bytes; at += page) block[at] = 0;
  std::free(const_cast<char*>(block));
#else
  static_cast<void>(bytes);
#endif
}

}  // namespace tra
