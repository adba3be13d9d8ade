#include "tra/app/gpu_sharing.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "tra/common/log.hpp"

namespace tra::app {

namespace {

// The GPUs this process can see; 0 on a host build (or a Kokkos too old to say).
int gpus_visible() {
#if KOKKOS_VERSION >= 40300
  return std::max(Kokkos::num_devices(), 0);
#else
  return 0;
#endif
}

// Whether an MPS control daemon is running for this user: it keeps its
// control pipe in the pipe directory its clients look in.
bool mps_running() {
  const char* dir = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::path(dir && *dir ? dir : "/tmp/nvidia-mps") / "control", ec);
}

}  // namespace

void warn_if_ranks_share_a_gpu(const comm::Communicator& c) {
  const int gpus = gpus_visible();
  if (gpus == 0) return;
  const int ranks = c.ranks_on_node();
  if (ranks <= gpus || mps_running()) return;
  Log::warn(std::to_string(ranks) + " ranks share " + std::to_string(gpus) +
            " GPU(s) on this node without NVIDIA MPS: the GPU runs one process at a time, " +
            "and each operator waits its turn (on an H200, 2 ranks' SGD steps took 7-10x one rank's time). Run one rank per GPU, or start MPS " +
            "(nvidia-cuda-mps-control -d) before mpirun (docs/gpu.md)");
}

}  // namespace tra::app
