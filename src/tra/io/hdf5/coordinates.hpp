#pragma once
// A sparse tensor's blocks from its HDF5 coordinate lists (issue 30;
// io/hdf5/coordinate_lists.hpp), whose entries come in any order. Every
// rank reads the lists in pieces, without MPI-IO, and keeps the entries of
// its own blocks. An
// entry outside the tensor, or two entries at one place, is refused with
// their places in the lists: duplicates are not summed, since the reader
// cannot know whether the writer meant a sum or wrote one entry twice.
#include <string>
#include <vector>

#include "tra/common/dtype.hpp"
#include "tra/core/key.hpp"
#include "tra/core/sparse_block.hpp"
#include "tra/io/hdf5/coordinate_lists.hpp"

namespace tra::io::hdf5 {

// The blocks at `keys` of a tensor of `tensor_shape` (2-D) cut into blocks
// of `block` (dividing it; key (i, j) holds rows i·block[0] ..., columns
// j·block[1] ...), values rounded once to `dtype`, in the order of `keys`.
// UserError for an entry outside the tensor (every rank reads every entry,
// so every rank finds it) or two entries at one place in a block of `keys`.
// An index list's tensor may be a batch of it: its rows are entries
// `first_row` ... of the list, and only those are read.
std::vector<SparseBlock> read_sparse_blocks(const CoordinateLists& src, const Shape& tensor_shape, const Shape& block, const std::vector<Key>& keys,
                                            DType dtype = DType::Float64, Index first_row = 0);

}  // namespace tra::io::hdf5
