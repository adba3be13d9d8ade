#pragma once
// Handing a loop-carried tensor (a parameter, an optimizer's state) from one
// run of a training step to the next: the tuples of X.next, where this run
// left them, become the next run's Scan of X, where the plan reads it. When
// the update ends where the read starts (the same chunks on the same ranks,
// or X.next held on every rank) nothing moves and no chunk is copied: the
// parameters stay where they live. Otherwise the chunks move by one Shuffle
// (or one Bcast for a read on every site) of exactly the tuples that are
// elsewhere; carry_floats predicts how many floats that is.
#include <optional>
#include <vector>

#include "tra/comm/communicator.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::exec {

// Floats moved (all ranks together) to bring `next`'s tuples to `scan`'s
// placement; none when the chunk shapes differ (carried another way).
std::optional<Index> carry_floats(const physical::IaNode& next, const physical::IaNode& scan, int nranks);

// This rank's tuples for `scan`, from its tuples of `next` (`mine`).
// Collective over `c` when anything moves; `moved`: floats this rank sent.
// None when the chunk shapes differ.
std::optional<std::vector<Tuple>> carry(const comm::Communicator& c, const std::vector<Tuple>& mine, const physical::IaNode& next,
                                        const physical::IaNode& scan, Index& moved);

}  // namespace tra::exec
