#pragma once
// The Carry operator's step (physical/ops/carry.hpp, which predicts what it
// moves): handing a loop-carried tensor (a parameter, an optimizer's state)
// from one run of a training step to the next: the tuples of X.next, where this run
// left them, become the next run's Scan of X, where the plan reads it. When
// the update ends where the read starts (the same chunks on the same ranks,
// or X.next held on every rank) nothing moves and no chunk is copied: the
// parameters stay where they live. Otherwise the chunks move by one Shuffle
// (or one Bcast for a read on every site) of exactly the tuples that are
// elsewhere.
//
// Where the update's chunks differ from the read's (a data-parallel plan
// updates W in row blocks but reads it whole), each of X.next's chunks goes
// to every rank whose Scans read part of it, and no further:
// physical::regrid_sites says which ranks those are.
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "tra/comm/communicator.hpp"
#include "tra/physical/carry_plan.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::exec {

// This rank's tuples for `scan`, from its tuples of `next` (`mine`).
// Collective over `c` when anything moves; `moved`: floats this rank sent.
// None when the chunk shapes differ.
std::optional<std::vector<Tuple>> carry(const comm::Communicator& c, const std::vector<Tuple>& mine, const physical::IaNode& next,
                                        const physical::IaNode& scan, Index& moved);

// The chunks of `next` this rank needs (its own among them), from its tuples
// of `next` (`mine`). Collective over `c`; `moved`: floats this rank sent.
std::vector<Tuple> regrid(const comm::Communicator& c, const std::vector<Tuple>& mine, const physical::IaNode& next,
                          const std::map<Key, std::set<int>>& sites, Index& moved);

}  // namespace tra::exec
