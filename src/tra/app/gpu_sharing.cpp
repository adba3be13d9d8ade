#include "tra/app/gpu_sharing.hpp"

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tra/common/kokkos_types.hpp"
#include "tra/common/log.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace tra::app {

namespace {

// This process's GPU by its PCI bus id, which ranks given different
// CUDA_VISIBLE_DEVICES still write alike for one GPU; "" where there is none.
std::string gpu_bus_id() {
#if defined(KOKKOS_ENABLE_CUDA)
  char id[32] = {};
  int device = 0;
  if (cudaGetDevice(&device) == cudaSuccess && cudaDeviceGetPCIBusId(id, sizeof id, device) == cudaSuccess) return id;
#endif
  return "";
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
  if constexpr (kHostChunks) return;  // the same on every rank: no collective is skipped on some
  const std::string id = gpu_bus_id();
  const int same = c.ranks_on_node_naming(id);  // collective: every rank asks, with a GPU or without
  const int sharing = static_cast<int>(c.max(id.empty() ? 1.0 : static_cast<double>(same)));
  if (sharing <= 1 || mps_running()) return;
  Log::warn(std::to_string(sharing) +
            " ranks share one GPU without NVIDIA MPS: the GPU runs one process at a time, and each operator waits its turn " +
            "(on an H200, 2 ranks' SGD steps took 7-10x one rank's time). Run one rank per GPU, or start MPS (nvidia-cuda-mps-control -d) " +
            "before mpirun (docs/gpu.md)");
}

}  // namespace tra::app
