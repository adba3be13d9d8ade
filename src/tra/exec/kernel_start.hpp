#pragma once
// Starting, while a plan is bound, the code its operators will run: a
// process's first launch of a kernel loads it (kernels/kernel_start.hpp),
// and that cost belongs to no operator. The executor calls this before it
// runs anything, so that --explain=analyze times each operator's own work.
#include "tra/physical/ia_plan.hpp"

namespace tra::exec {

// Starts what `plan` runs; returns the seconds this took (reported apart
// from the operators' times).
double start_kernels(const physical::IaPlan& plan);

}  // namespace tra::exec
