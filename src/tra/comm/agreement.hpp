#pragma once
// Checks that each rank makes on its own (a folder, a file, the deck, a
// dataset's chunks) can come out differently on different nodes: a
// node-local scratch folder, a file missing from one node's filesystem. A
// rank that stopped alone would leave the others waiting in their next
// collective forever, and, not being rank 0, would not even say why. A stage
// run through `agree` ends the same way on every rank: when it throws a
// UserError on any rank, every rank throws the error of the lowest such rank,
// which rank 0 then prints once.
#include <functional>
#include <string>

#include "tra/comm/communicator.hpp"

namespace tra::comm {

// Runs `stage` on this rank, then agrees with the others (collective).
void agree(const Communicator& c, const std::function<void()>& stage);

// The lowest rank that failed (with its message), or none: the collective
// part of agree, for a caller that kept going after its own failure (a
// collective file close must still be reached). `failure` is this rank's
// message, empty when it did not fail. Throws the agreed UserError.
void agree_on(const Communicator& c, const std::string& failure);

}  // namespace tra::comm
