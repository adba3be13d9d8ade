#pragma once
// How the process's host memory is allocated: a training loop (and a plan's
// operators) allocate and free the same large buffers again and again.
// glibc serves blocks above 32 MiB with fresh mmap'd pages and returns them
// on free, so every iteration paid a page fault per 4 KiB of every large
// result (measured: 0.675 -> 0.53 s per iteration of the speech-like FFNN on
// 2 ranks). keep_freed_memory() makes freed blocks stay in the process for
// the next allocation of their size; the process's footprint is its peak.
#include <cstddef>

namespace tra {

// Call once, first thing in main(). A no-op outside glibc.
void keep_freed_memory();
// Whether keep_freed_memory took effect in this process.
bool freed_memory_is_kept();

// Grows the heap by `bytes` paged in (written once, then freed and kept, as
// keep_freed_memory keeps it): the blocks allocated from it later find
// their pages mapped. The first write to a page the process never touched
// costs a page fault, about 1 us per 4 KiB on the VM, so a one-shot run's
// results paid for memory as much as for their work (matmul.yaml's Bcast of
// 1.6 MB at 2 ranks took 1.03-1.11 ms, and 0.32-0.41 ms on a heap paged in
// at bind). A no-op without keep_freed_memory.
void page_in_heap(std::size_t bytes);

}  // namespace tra
