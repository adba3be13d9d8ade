#pragma once
// How MPI is handed chunk memory. On a host build chunks live in host
// memory, which MPI reads and writes where it is. On a GPU build they live
// in device memory: an MPI built to read it (CUDA-aware Open MPI, MPICH with
// GPU support) is handed it directly, so that ranks on one node move chunks
// GPU to GPU and nothing passes through the host; any other MPI gets copies
// in pinned host buffers (comm/exchange.cpp), as it must.
//
// The MPI says which it is (Open MPI: MPIX_Query_cuda_support; MPICH:
// MPIX_GPU_query_support). TRA_GPU_AWARE_MPI=1 or 0 overrides its answer,
// for an MPI that reads device memory only when asked at run time (Cray
// MPICH with MPICH_GPU_SUPPORT_ENABLED=1) or to compare the two paths.
#include "tra/comm/communicator.hpp"

namespace tra::comm {

enum class ChunkTransport {
  Host,  // chunks in host memory: MPI reads them in place
  Device,  // chunks in device memory, read by a GPU-aware MPI in place
  Staged,  // chunks in device memory, copied through pinned host buffers
};

const char* transport_name(ChunkTransport t);

// The decision, from its inputs: whether chunks live in host memory, the
// value of TRA_GPU_AWARE_MPI (null where unset), and the MPI's own answer.
// A value other than 0 or 1 is a UserError naming the variable.
ChunkTransport decide_transport(bool host_chunks, const char* override_value, bool mpi_reads_device_memory);

// This process's transport, decided on first use (after MPI_Init) and kept.
ChunkTransport chunk_transport();

// The same, decided by every rank of `c` and agreed: a bad TRA_GPU_AWARE_MPI
// on any rank (a variable mpirun did not pass to every node) stops every
// rank with the lowest such rank's error, where a rank that stopped alone
// would leave the others waiting. Collective; the drivers call it first.
ChunkTransport agreed_chunk_transport(const Communicator& c);

}  // namespace tra::comm
