#pragma once
// The tuples of a tensor relation. A relation's type (RelType) and placement
// are properties of the plan node that produces it; at run time a rank holds
// just its own tuples, as a std::vector<Tuple>.
#include <vector>

#include "tra/core/chunk.hpp"
#include "tra/core/rel_type.hpp"

namespace tra {

struct Tuple {
  Key key;
  Chunk chunk;
};

// §3.2 integrity constraints over the keys of a whole relation: every key is
// unique and every key below the frontier is present. Returns "" when both
// hold, otherwise a sentence naming the first violation.
std::string check_integrity(const std::vector<Key>& keys, const Shape& frontier);

}  // namespace tra
