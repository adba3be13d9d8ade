#pragma once
// A sparse tensor's filled lines (core/filled_lines.hpp) counted from its
// HDF5 coordinate lists when the deck is read (issue 30): for each grid of
// power-of-two cuts dividing the tensor, how many rows and columns of each
// block hold an entry. One pass over the lists, a 64-bit word per row and
// per column.
#include "tra/core/filled_lines.hpp"
#include "tra/io/hdf5/coordinate_lists.hpp"

namespace tra::io::hdf5 {

// The layout of the 2-D tensor of `shape` whose entries `src` lists. An
// entry outside the tensor is skipped (reading the blocks refuses it, with
// its place); two at one place count once.
FilledLayout filled_layout(const CoordinateLists& src, const Shape& shape);

}  // namespace tra::io::hdf5
