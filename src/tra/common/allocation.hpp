#pragma once
// How the process's host memory is allocated: a training loop (and a plan's
// operators) allocate and free the same large buffers again and again.
// glibc serves blocks above 32 MiB with fresh mmap'd pages and returns them
// on free, so every iteration paid a page fault per 4 KiB of every large
// result (measured: 0.675 -> 0.53 s per iteration of the speech-like FFNN on
// 2 ranks). keep_freed_memory() makes freed blocks stay in the process for
// the next allocation of their size; the process's footprint is its peak.
namespace tra {

// Call once, first thing in main(). A no-op outside glibc.
void keep_freed_memory();

}  // namespace tra
