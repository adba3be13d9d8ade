#pragma once
// The type of a (physical) tensor relation: key arity k, array bound b and the
// frontier f (TRA paper §3, §3.2). Under uniqueness and continuity the relation
// holds exactly volume(f) tuples, so sizes are known without estimation (§5.3).
// Its arrays' elements are of one type, dtype.
#include <memory>
#include <string>

#include "tra/common/dtype.hpp"
#include "tra/core/filled_lines.hpp"
#include "tra/core/key.hpp"

namespace tra {

struct RelType {
  Shape frontier;  // one entry per key dimension
  Shape chunk_shape;  // bound b of every array
  DType dtype = DType::Float64;  // of every array's elements
  // A sparse relation (its arrays are blocks of stored entries,
  // core/sparse_block.hpp): the entries a tuple holds on average; -1: dense.
  double stored = -1;
  // A sparse relation: the rows and columns each block holds entries in,
  // where the deck's reader counted them (core/filled_lines.hpp); null
  // otherwise. Not part of the type's identity: one relation's data.
  std::shared_ptr<const FilledByBlock> filled = nullptr;

  int key_arity() const { return static_cast<int>(frontier.size()); }
  Index tuples() const { return volume(frontier); }
  Index floats_per_tuple() const { return volume(chunk_shape); }
  Index floats() const { return tuples() * floats_per_tuple(); }
  bool sparse() const { return stored >= 0; }
  // What one tuple's array takes in memory: its elements, or a sparse
  // block's entries twice (by row and by column: a value and a column
  // number each) and its two row-offset arrays.
  double bytes_per_tuple() const;
  // A relation is in standard form when key dimension i tiles array dimension i;
  // then it stands for the tensor of shape frontier[i] * chunk_shape[i].
  bool standard() const { return frontier.size() == chunk_shape.size(); }
  Shape tensor_shape() const;
  std::string str() const;  // "f=[2, 2] b=[2, 2]", and " float32" for float32 arrays
  bool operator==(const RelType& o) const { return frontier == o.frontier && chunk_shape == o.chunk_shape && dtype == o.dtype && stored == o.stored; }
};

}  // namespace tra
