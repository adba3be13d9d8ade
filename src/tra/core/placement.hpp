#pragma once
// Where the tuples of a physical tensor relation live (TRA paper §4): the site
// attribute. Placement is deterministic — the site of a tuple is a pure function
// of its key — so the optimizer can predict exactly which tuples a broadcast or
// a shuffle moves, and the executor's measured traffic must match.
//
//  * All      every tuple is on every site (after Bcast).
//  * Part(D)  each tuple is on one site: the row-major position of key[D] in
//             frontier[D], modulo the number of sites. Dimensions whose frontier
//             is 1 do not change that position, so they are dropped from D.
//  * Explicit each key's site listed (after a ReKey moved keys but not tuples).
#include <map>
#include <string>
#include <vector>

#include "tra/core/key.hpp"

namespace tra {

struct Placement {
  enum class Kind { All, Part, Explicit };
  Kind kind = Kind::Part;
  std::vector<int> dims;          // Part: the partitioning key dimensions
  std::map<Key, int> sites;       // Explicit: site of every key

  static Placement all() { return {Kind::All, {}, {}}; }
  static Placement part(std::vector<int> dims, const Shape& frontier);
  static Placement explicit_sites(std::map<Key, int> sites) { return {Kind::Explicit, {}, std::move(sites)}; }

  // The single site of key under Part or Explicit placement.
  int site_of(const Key& key, const Shape& frontier, int nsites) const;
  bool is_all() const { return kind == Kind::All; }
  bool same_as(const Placement& o) const;
  std::string str() const;  // "All", "Part<0,2>", "Explicit"
};

}  // namespace tra
