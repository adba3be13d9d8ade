#pragma once
// Starting, while a plan is bound, the code its operators will run: a
// process's first launch of a kernel loads it (kernels/kernel_start.hpp),
// its first file opened through MPI-IO loads MPI-IO's components, and
// those costs belong to no operator. The executor calls this before it
// runs anything, so that --explain=analyze times each operator's own work.
#include "tra/comm/communicator.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::exec {

// Starts what `plan` runs; returns the seconds this took (reported apart
// from the operators' times). Collective over `c` where the plan reads an
// HDF5 file: every rank binds the same plan.
double start_kernels(const physical::IaPlan& plan, const comm::Communicator& c);

}  // namespace tra::exec
