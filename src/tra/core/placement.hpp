#pragma once
// Where the tuples of a physical tensor relation live (TRA paper §4): the site
// attribute. Placement is deterministic — the site of a tuple is a pure function
// of its key — so the optimizer can predict exactly which tuples a broadcast or
// a shuffle moves, and the executor's measured traffic must match.
//
//  * All      every tuple is on every site (after Bcast).
//  * Part(D)  each tuple is on one site: D is mapped onto a processor grid
//             (processor_grid.hpp), the key's coordinates are key[d] mod P[d],
//             and the site is their row-major position in the grid. The grid
//             is given (a join strategy's choice) or the default one for the
//             extents of D. Dimensions whose frontier is 1 do not change the
//             site, so they are dropped from D.
//             A Part placement on a face of a larger grid (its strides
//             leave out some of the grid's dimensions) may spread its keys
//             over those left-out dimensions too: their coordinates are the
//             digits of the key's block index (the sum over D of
//             key[d] / P[d]), so each face site's keys are dealt over the
//             sites above it when it has more than one round of blocks, and
//             a key still lands on one of the sites that hold a copy or a
//             partial result of it (join_strategies.cpp).
//  * Explicit each key's site listed (after a ReKey moved keys but not tuples).
#include <map>
#include <string>
#include <vector>

#include "tra/core/key.hpp"
#include "tra/core/processor_grid.hpp"

namespace tra {

struct Placement {
  enum class Kind { All, Part, Explicit };
  Kind kind = Kind::Part;
  std::vector<int> dims;  // Part: the partitioning key dimensions
  std::map<Key, int> sites;  // Explicit: site of every key
  ProcGrid grid;  // Part: sites along each of dims (empty: processor_grid's default)
  std::vector<Index> strides;  // Part: site = sum of coordinate x stride (empty: row-major over grid)
  // Part on a face: the grid dimensions it leaves out, each dealt the keys'
  // block index (sites along it, and its stride); empty: the face alone.
  // Given only with the grid and strides of the larger grid the face is on
  // (join_strategies.cpp, scan_placement.cpp). Where a face dimension has no
  // more blocks than sites, every block index is 0 and the keys stay on the
  // face: the spread deals only the blocks beyond the grid's first round.
  struct Spread {
    Index sites = 1;
    Index stride = 1;
    bool operator==(const Spread& o) const { return sites == o.sites && stride == o.stride; }
  };
  std::vector<Spread> spread;

  static Placement all() { return {Kind::All, {}, {}, {}, {}, {}}; }
  static Placement part(std::vector<int> dims, const Shape& frontier);
  static Placement explicit_sites(std::map<Key, int> sites) { return {Kind::Explicit, {}, std::move(sites), {}, {}, {}}; }

  // The single site of key under Part or Explicit placement; `frontier`
  // gives the extents the default grid is chosen for.
  int site_of(const Key& key, const Shape& frontier, int nsites) const;
  // The site of key under Part placement on grid g.
  int site_on(const Key& key, const ProcGrid& g) const;
  // The grid Part placement uses for these extents (the given one, or the default).
  ProcGrid grid_for(const Shape& frontier, int nsites) const;
  // Part: the default grid made the given one, the first time a plan needs
  // it, so that every later inference and the executor place keys alike.
  void fix_grid(const Shape& frontier, int nsites) {
    if (kind == Kind::Part && grid.empty()) grid = grid_for(frontier, nsites);
  }
  // The strides it numbers the sites of `grid` with (the given ones, or row-major).
  std::vector<Index> strides_for(const ProcGrid& grid) const;
  // Both Part, and every key on the same site under both: the same dims on
  // the same grid and strides, given or by default (each for its extents).
  bool same_sites(const Placement& o, const Shape& frontier, const Shape& o_frontier, int nsites) const;
  bool is_all() const { return kind == Kind::All; }
  bool same_as(const Placement& o) const;
  std::string str() const;  // "All", "Part<0,2>", "Part<0,1,2> on 2x2x2", "Part<0,1> on 2x2 strides 4,2 spread 2@1", "Explicit"
};

}  // namespace tra
