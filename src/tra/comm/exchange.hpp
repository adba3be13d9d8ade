#pragma once
// The IA's two data movements as MPI collectives over packed chunks (never
// point-to-point loops): Bcast is MPI_Allgatherv, Shuffle is MPI_Alltoallv.
// Every chunk of a relation has the same shape, so a chunk travels as one
// element of a contiguous MPI datatype and counts stay far below INT_MAX.
#include <functional>

#include "tra/comm/communicator.hpp"
#include "tra/core/tensor_relation.hpp"

namespace tra::comm {

struct Moved {
  Index floats = 0;  // floats this rank sent to other ranks
};

// Every rank ends with the tuples of all ranks.
std::vector<Tuple> broadcast(const Communicator& c, const std::vector<Tuple>& mine, int key_arity,
                             const Shape& chunk_shape, Moved& moved);

// Every tuple goes to rank `site(key)`; tuples already there stay without a copy.
std::vector<Tuple> shuffle(const Communicator& c, std::vector<Tuple> mine, int key_arity, const Shape& chunk_shape,
                           const std::function<int(const Key&)>& site, Moved& moved);

}  // namespace tra::comm
