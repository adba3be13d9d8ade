#pragma once
// The free memory of the device that chunk data lives on, for what the
// planner's host-memory bound does not see: on a GPU, device memory
// (cudaMemGetInfo), shared by the ranks that use the GPU.
#include <cstdint>

namespace tra {

// Bytes free on this process's device now, or -1 where chunk data lives in
// host memory (a host build), which the memory bound already covers.
std::int64_t device_free_bytes();

}  // namespace tra
