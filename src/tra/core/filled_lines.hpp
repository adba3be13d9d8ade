#pragma once
// Which rows and columns of each block of a sparse relation hold an entry
// (issue 30). A sparse product's result is zero outside the rows its block
// has entries in (kernels/einsum_kernel.hpp), and a shuffle of it sends only
// those rows (comm/exchange.hpp); the planner charges it by these counts,
// read from the data when the deck is read, so that predicted = measured.
#include <map>

#include "tra/core/key.hpp"

namespace tra {

// Rows and columns of one block holding at least one entry.
struct FilledLines {
  Index rows = 0, cols = 0;
};

// One grid's blocks, by key (i, j).
using FilledByBlock = std::map<Key, FilledLines>;

// A sparse tensor's filled lines for each grid of power-of-two cuts that
// divide it (2^a x 2^b blocks, a and b up to kMaxLevel): the grids a
// labeling gives it (TRA's blocks are equal).
struct FilledLayout {
  static constexpr int kMaxLevel = 6;
  std::map<Shape, FilledByBlock> by_grid;
  // The blocks of `grid`, or null where it was not counted.
  const FilledByBlock* find(const Shape& grid) const {
    auto it = by_grid.find(grid);
    return it == by_grid.end() ? nullptr : &it->second;
  }
};

}  // namespace tra
