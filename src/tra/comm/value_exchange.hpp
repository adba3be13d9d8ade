#pragma once
// Plain arrays of floats between ranks, where both sides know every count
// beforehand (they compute them from the same draws): what a training run
// by rounds moves (app/local_rounds.hpp). MPI collectives, never
// point-to-point loops: MPI_Alltoallv and MPI_Allgatherv of doubles.
#include <vector>

#include "tra/comm/communicator.hpp"
#include "tra/comm/exchange.hpp"
#include "tra/common/kokkos_types.hpp"

namespace tra::comm {

// to_rank[r]: the values this rank sends rank r (its own entry stays
// unsent); from_counts[r]: how many it receives from rank r. Returns what
// it received, rank by rank, concatenated; `moved` counts what it sent to
// other ranks.
std::vector<Scalar> exchange_values(const Communicator& c, const std::vector<std::vector<Scalar>>& to_rank, const std::vector<Index>& from_counts,
                                    Moved& moved);

// Every rank's `mine` (the same length on every rank) on every rank, in rank
// order, concatenated (rank r's at r·mine.size()); `moved` counts what this
// rank sent to the others.
std::vector<Scalar> gather_values(const Communicator& c, const std::vector<Scalar>& mine, Moved& moved);

// Every rank's block on every rank, in place: counts[r] values from rank r
// (every rank passes the same counts), `all` their concatenation in rank
// order with this rank's own block already filled in. Returns `all` with
// the others' blocks filled too; `moved` counts what this rank sent. No
// copy of one's own block is made: it is sent from where it lies.
std::vector<Scalar> share_values(const Communicator& c, std::vector<Scalar> all, const std::vector<Index>& counts, Moved& moved);

}  // namespace tra::comm
