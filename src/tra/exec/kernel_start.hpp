#pragma once
// Starting, while a plan is bound, the code its operators will run: a
// process's first launch of a kernel loads it (kernels/kernel_start.hpp),
// its first file opened through MPI-IO loads MPI-IO's components, its
// first exchange of each kind sets that MPI collective up, its first write
// to each page of memory faults it in, and those costs belong to no
// operator. The executor calls this before it
// runs anything, so that --explain=analyze times each operator's own work.
#include <string>

#include "tra/comm/communicator.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::exec {

// Where the start's time went, in seconds on this rank.
struct StartTimes {
  double gemm_library = 0;  // the BLAS (cuBLAS: its handle, one small GEMM per transposition)
  double gemm_shapes = 0;  // on a device, the plan's small GEMMs once each
  int shapes = 0;
  double sparse = 0, loops = 0, files = 0;  // the sparse library, the loop kernels, MPI-IO and the generators
  double exchanges = 0;  // MPI's collectives, one small Bcast or Shuffle of each kind the plan moves
  double memory = 0;  // on a host, the heap paged in to this rank's estimated peak (common/allocation.hpp)
  double total() const { return gemm_library + gemm_shapes + sparse + loops + files + exchanges + memory; }
  std::string text() const;  // "0.0720 s (BLAS 0.0450 s, 3 GEMM shapes 0.0220 s, ...)"
};

// Starts what `plan` runs. Collective over `c` where the plan reads an
// HDF5 file or moves chunks: every rank binds the same plan.
StartTimes start_kernels(const physical::IaPlan& plan, const comm::Communicator& c);

}  // namespace tra::exec
