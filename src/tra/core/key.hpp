#pragma once
// Keys and bounds: small integer vectors on the host (index_vector.hpp).
//
// A Key identifies a tuple of a tensor relation (TRA paper §2.2); a Shape is a
// bound vector b (§3) or a frontier f (§3.2). Both are row-major when linearized.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tra/core/index_vector.hpp"

namespace tra {

using Key = IndexVector;
using Shape = IndexVector;

Index volume(const Shape& shape);  // product of the extents, 1 for <>
Index linearize(const Key& key, const Shape& frontier);  // row-major position of key
Key delinearize(Index position, const Shape& frontier);
std::string to_string(const IndexVector& v);  // "<0, 1>"
std::string shape_string(const Shape& s);  // "[4, 4]"

// Visit every key k with 0 <= k < frontier in row-major order.
void for_each_key(const Shape& frontier, const std::function<void(const Key&)>& visit);

// key restricted to the given positions, in that order.
Key project(const Key& key, const std::vector<int>& positions);
// Positions 0..n-1 without `drop`.
std::vector<int> complement(int n, const std::vector<int>& drop);

struct KeyHash {
  size_t operator()(const Key& k) const noexcept;
};

}  // namespace tra
