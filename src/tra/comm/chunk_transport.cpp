#include "tra/comm/chunk_transport.hpp"

#include <mpi.h>

#include <cstdlib>
#include <string>

#include "tra/comm/agreement.hpp"
#include "tra/common/error.hpp"
#include "tra/common/kokkos_types.hpp"

// Open MPI and MPICH declare their GPU queries here (mpi.h alone in MPICH 4).
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace tra::comm {

namespace {

// Whether this process's MPI says it reads CUDA device memory. Open MPI's
// macro says the library was built with CUDA, its function that the one
// loaded at run time was; MPICH answers per GPU kind.
bool mpi_reads_cuda_memory() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#elif defined(MPIX_GPU_SUPPORT_CUDA)
  int supported = 0;
  return MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported) == MPI_SUCCESS && supported == 1;
#else
  return false;
#endif
}

}  // namespace

const char* transport_name(ChunkTransport t) {
  switch (t) {
    case ChunkTransport::Host:
      return "host memory, read by MPI in place";
    case ChunkTransport::Device:
      return "device memory, read by a GPU-aware MPI in place";
    case ChunkTransport::Staged:
      return "device memory, staged through pinned host buffers";
  }
  return "?";
}

ChunkTransport decide_transport(bool host_chunks, const char* override_value, bool mpi_reads_device_memory) {
  if (override_value) {
    const std::string v = override_value;
    if (v != "0" && v != "1")
      throw UserError("TRA_GPU_AWARE_MPI=" + v + ": expected 1 (hand MPI device memory) or 0 (stage chunks through host memory), or leave it unset");
    if (!host_chunks) return v == "1" ? ChunkTransport::Device : ChunkTransport::Staged;
  }
  if (host_chunks) return ChunkTransport::Host;
  return mpi_reads_device_memory ? ChunkTransport::Device : ChunkTransport::Staged;
}

ChunkTransport agreed_chunk_transport(const Communicator& c) {
  agree(c, [] { static_cast<void>(chunk_transport()); });
  return chunk_transport();
}

ChunkTransport chunk_transport() {
  static const ChunkTransport t = decide_transport(kHostChunks, std::getenv("TRA_GPU_AWARE_MPI"), !kHostChunks && mpi_reads_cuda_memory());
  return t;
}

}  // namespace tra::comm
