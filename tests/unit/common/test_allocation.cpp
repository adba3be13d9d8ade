// The heap paged in ahead (common/allocation.hpp): a block allocated after
// page_in_heap finds its pages mapped, so writing it costs few page faults
// where a block of fresh pages costs one per page.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "tra/common/allocation.hpp"

namespace tra {
namespace {

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Writes one byte per page of a new block of `bytes`; the page faults it
// took (-1 where the block could not be had).
long faults_writing(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  auto* block = static_cast<volatile char*>(std::malloc(bytes));
  if (!block) return -1;
  const long before = minor_faults();
  for (std::size_t at = 0; at < bytes; at += page) block[at] = 1;
  const long faults = minor_faults() - before;
  std::free(const_cast<char*>(block));
  return faults;
}

TEST(Allocation, AHeapPagedInAheadServesBlocksWithoutPageFaults) {
#if !defined(__GLIBC__)
  GTEST_SKIP() << "keep_freed_memory and page_in_heap act on glibc's heap";
#endif
  constexpr std::size_t kBytes = std::size_t{48} << 20;
  const long pages = static_cast<long>(kBytes / static_cast<std::size_t>(sysconf(_SC_PAGESIZE)));
  // In a process of its own (forked): keep_freed_memory changes the heap for
  // the rest of the process, and the other tests run on glibc's defaults.
  GTEST_FLAG_SET(death_test_style, "fast");
  EXPECT_EXIT(
      {
        keep_freed_memory();  // as tra-run does, first thing
        page_in_heap(2 * kBytes);
        const long faults = faults_writing(kBytes);
        std::fprintf(stderr, "%ld page faults writing %ld pages\n", faults, pages);
        _exit(faults >= 0 && faults < pages / 8 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "page faults");
}

}  // namespace
}  // namespace tra
