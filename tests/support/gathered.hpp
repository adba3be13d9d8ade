#pragma once
// A relation an executor computed, as one dense tensor on every rank: what
// the MPI tests compare with the reference evaluator.
#include <vector>

#include "support/reference_evaluator.hpp"
#include "tra/comm/communicator.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::testing {

// This rank's tuples of `node`'s result (`mine`) and every other rank's,
// assembled: a relation held on every site is taken from rank 0 alone.
// Collective over `c`.
Dense gathered(const comm::Communicator& c, const std::vector<Tuple>& mine, const physical::IaNode& node);

}  // namespace tra::testing
