#include "tra/core/tensor_relation.hpp"

#include <set>

namespace tra {

std::string check_integrity(const std::vector<Key>& keys, const Shape& frontier) {
  std::set<Key> seen;
  for (const Key& k : keys) {
    if (k.size() != frontier.size()) return "key " + to_string(k) + " has the wrong arity for frontier " + shape_string(frontier);
    for (size_t i = 0; i < k.size(); ++i)
      if (k[i] < 0 || k[i] >= frontier[i]) return "key " + to_string(k) + " lies outside the frontier " + shape_string(frontier);
    if (!seen.insert(k).second) return "uniqueness violated: key " + to_string(k) + " appears twice";
  }
  std::string hole;
  if (static_cast<Index>(seen.size()) != volume(frontier)) {
    for_each_key(frontier, [&](const Key& k) {
      if (hole.empty() && !seen.count(k)) hole = "continuity violated: no tuple has key " + to_string(k);
    });
  }
  return hole;
}

}  // namespace tra
