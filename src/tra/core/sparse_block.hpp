#pragma once
// One block of a sparse tensor relation (issue 30): the stored entries of a
// rows x cols part of a 2-D tensor, in compressed sparse rows (CSR: for row
// r, entries row_start[r] .. row_start[r + 1] - 1 give their columns and
// values, columns ascending), held in Kokkos Views where chunks live.
//
// The block also holds its entries by column (the transposed block's CSR).
// A product with the block transposed (the gradient Aᵀ·G of a product A·H)
// then runs row by row like the plain one: each output row is summed by one
// thread in a fixed order, with no atomic additions, so the results are the
// same run after run and at any thread count.
#include <vector>

#include "tra/common/dtype.hpp"
#include "tra/common/kokkos_types.hpp"
#include "tra/core/chunk.hpp"

namespace tra {

// One stored entry, at (row, col) of its block.
struct SparseEntry {
  Index row = 0, col = 0;
  double value = 0;
};

// One orientation of a block: rows x cols, CSR (int ordinals: a block
// holds fewer than 2^31 entries).
struct Csr {
  Index rows = 0, cols = 0;
  OrdinalData row_start;  // rows + 1 offsets
  OrdinalData columns;  // one per entry
  Chunk values;  // one per entry, 1-D, of the block's element type
  // The rows holding an entry, ascending: a product by this orientation is
  // zero in every other row, and an exchange sends only these (Chunk::
  // row_support).
  OrdinalData filled_rows;
};

struct SparseBlock {
  Csr by_row;  // the block
  Csr by_column;  // its transpose: (col, row) entries, by col

  Index rows() const { return by_row.rows; }
  Index cols() const { return by_row.cols; }
  Index stored() const { return by_row.values.size(); }
  DType dtype() const { return by_row.values.dtype; }

  // The block of `rows` x `cols` holding `entries` (each inside it, in any
  // order, no two at one place: asserted; the reader refuses duplicates
  // before), values rounded once to `dtype`.
  static SparseBlock from_entries(Index rows, Index cols, std::vector<SparseEntry> entries, DType dtype = DType::Float64);
  // The same from its CSR by row, given as the reader builds it in place
  // (row_start: rows + 1 offsets; each row's columns ascending and
  // distinct: asserted). Taken by value and freed once copied, so that a
  // large block is held about twice at most while it is made.
  static SparseBlock from_csr(Index rows, Index cols, std::vector<int> row_start, std::vector<int> columns, std::vector<double> values,
                              DType dtype = DType::Float64);
  // The entries, ordered by (row, col), values widened to double (exact).
  std::vector<SparseEntry> entries() const;
};

}  // namespace tra
