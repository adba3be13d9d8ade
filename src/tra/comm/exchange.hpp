#pragma once
// The IA's two data movements as MPI collectives over packed chunks (never
// point-to-point loops): Bcast is MPI_Allgatherv, Shuffle is MPI_Alltoallv.
// Every chunk of a relation has the same shape, so a chunk travels as one
// element of a contiguous MPI datatype and counts stay far below INT_MAX
// (a row one element, for a shuffle of filled rows).
#include <functional>

#include "tra/comm/communicator.hpp"
#include "tra/core/tensor_relation.hpp"

namespace tra::comm {

struct Moved {
  Index floats = 0;  // floats this rank sent to other ranks
};

// The tuples this rank sends to and receives from each rank, known before
// anything moves (the executor takes them from the plan's distributions,
// exec/exchange_plan.hpp): the collectives then need no exchange of counts.
struct Counts {
  std::vector<int> send, recv;  // per rank; 0 for this rank itself
};

// Every rank ends with the tuples of all ranks. `counts`, if given, are the
// tuples each rank holds (as planned); this rank's own must match. Every
// chunk holds elements of `dtype` (a rank may hold none, so it is said).
std::vector<Tuple> broadcast(const Communicator& c, const std::vector<Tuple>& mine, int key_arity, const Shape& chunk_shape, DType dtype,
                             Moved& moved, const std::vector<int>* counts = nullptr);

// Every tuple goes to rank `site(key)`; tuples already there stay without a
// copy. `planned`, if given, says what moves: what this rank finds it must
// send has to match it, and every key it receives must be its own (else an
// internal error: the plan's prediction was wrong).
std::vector<Tuple> shuffle(const Communicator& c, std::vector<Tuple> mine, int key_arity, const Shape& chunk_shape, DType dtype,
                           const std::function<int(const Key&)>& site, Moved& moved, const Counts* planned = nullptr);

// The same for a sparse product's result (issue 30): each chunk that
// knows its filled rows (Chunk::row_support) sends those alone, with their
// numbers, and arrives as a chunk that is zero in every other row; a chunk
// that does not sends every row. `moved` counts the rows' floats (not
// their numbers: an int each).
std::vector<Tuple> shuffle_filled_rows(const Communicator& c, std::vector<Tuple> mine, int key_arity, const Shape& chunk_shape, DType dtype,
                                       const std::function<int(const Key&)>& site, Moved& moved, const Counts* planned = nullptr);

}  // namespace tra::comm
