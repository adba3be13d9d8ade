#pragma once
// Which data a training run keeps after its first read, and what that costs
// a rank (exec/input_cache.hpp keeps it, app/train_loop.cpp decides whether
// it fits): the Scans of data tensors (model::TensorDecl::is_data) that the
// run reads more than once: a batch tensor's when a batch recurs (more
// iterations than batches), a tensor read whole when there is more than one
// iteration. One list for both, so that the cache keeps exactly what the
// memory check counted.
#include <set>

#include "tra/physical/ia_plan.hpp"

namespace tra::app {

std::set<int> reread_data_scans(const physical::IaPlan& ia, Index batches, Index runs);
// This rank's bytes of everything those Scans read over the run, each part
// once: every batch of a batch tensor, the whole of one read whole.
double kept_bytes(const physical::IaPlan& ia, const std::set<int>& scans, Index batches, int rank);
// What keeping them adds to this rank's peak beyond the plan's own estimate
// (physical/memory_estimate.hpp): the plan's peak with those Scans' results
// held all along (the cache hands them to every iteration) less its peak,
// plus the batches the cache holds beside the one the plan reads. Part of
// what is kept lies in the plan's peak already, so this is less than
// kept_bytes.
double keeping_adds(const physical::IaPlan& ia, const std::set<int>& scans, Index batches, int rank);

}  // namespace tra::app
