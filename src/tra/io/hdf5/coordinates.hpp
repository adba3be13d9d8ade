#pragma once
// Sparse tensors from HDF5 coordinate lists (issue 30): three 1-D datasets
// of one length, the row and the column of each stored entry (integers) and
// its value (floats or integers), in any order. Every rank reads the lists
// in pieces, without MPI-IO, and keeps the entries of its own blocks. An
// entry outside the tensor, or two entries at one place, is refused with
// their places in the lists: duplicates are not summed, since the reader
// cannot know whether the writer meant a sum or wrote one entry twice.
#include <string>
#include <vector>

#include "tra/common/dtype.hpp"
#include "tra/core/key.hpp"
#include "tra/core/sparse_block.hpp"

namespace tra::io::hdf5 {

struct CoordinateLists {
  std::string file;
  std::string rows, cols, values;  // dataset paths
};

// How many entries the lists hold (their common length): what a planner
// sizes the relation by, known without reading them. UserError (naming the
// file and the dataset) for a missing file or dataset, one that is not 1-D,
// lists of different lengths, coordinates that are not integers, or values
// that are not numbers.
Index coordinate_count(const CoordinateLists& src);

// The blocks at `keys` of a tensor of `tensor_shape` (2-D) cut into blocks
// of `block` (dividing it; key (i, j) holds rows i·block[0] ..., columns
// j·block[1] ...), values rounded once to `dtype`, in the order of `keys`.
// UserError for an entry outside the tensor (every rank reads every entry,
// so every rank finds it) or two entries at one place in a block of `keys`.
std::vector<SparseBlock> read_sparse_blocks(const CoordinateLists& src, const Shape& tensor_shape, const Shape& block, const std::vector<Key>& keys,
                                            DType dtype = DType::Float64);

}  // namespace tra::io::hdf5
