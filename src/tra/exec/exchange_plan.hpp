#pragma once
// What each Bcast and Shuffle moves, read off the plan: placement is
// deterministic, so the distribution of a movement's input and output (the
// site of every key before and after) gives every rank's send and receive
// counts before anything moves. The collectives then skip their exchange of
// counts, and each rank checks that it sends what was predicted.
#include "tra/comm/exchange.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::exec {

// Tuples each rank holds before the broadcast `n` (its input's distribution).
std::vector<int> broadcast_counts(const physical::IaPlan& plan, const physical::IaNode& n);

// What `rank` sends to and receives from each rank in the shuffle `n`.
comm::Counts shuffle_counts(const physical::IaPlan& plan, const physical::IaNode& n, int rank);

}  // namespace tra::exec
