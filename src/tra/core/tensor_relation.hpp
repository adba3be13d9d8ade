#pragma once
// A tensor relation as one rank holds it: its type, its placement across the
// sites, and the (key, chunk) tuples that live on this rank.
#include <vector>

#include "tra/core/chunk.hpp"
#include "tra/core/placement.hpp"
#include "tra/core/rel_type.hpp"

namespace tra {

struct Tuple {
  Key key;
  Chunk chunk;
};

struct TensorRelation {
  RelType type;
  Placement placement;
  std::vector<Tuple> tuples;  // this rank's tuples

  Index local_floats() const;
};

// §3.2 integrity constraints over the keys of a whole relation: every key is
// unique and every key below the frontier is present. Returns "" when both
// hold, otherwise a sentence naming the first violation.
std::string check_integrity(const std::vector<Key>& keys, const Shape& frontier);

}  // namespace tra
