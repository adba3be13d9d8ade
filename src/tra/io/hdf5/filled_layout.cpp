#include "tra/io/hdf5/filled_layout.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tra::io::hdf5 {
namespace {

// The finest level that cuts `extent` into 2^level equal parts, at most
// FilledLayout::kMaxLevel (64 parts: one bit each in a 64-bit word).
int finest_level(Index extent) {
  int level = 0;
  while (level < FilledLayout::kMaxLevel && extent % (Index{2} << level) == 0) ++level;
  return level;
}

// A word of 2^finest bits (one per finest part) folded to 2^level bits:
// part j at `level` is filled where any of its finer parts is.
std::uint64_t fold(std::uint64_t word, int finest, int level) {
  const int width = 1 << (finest - level);
  std::uint64_t out = 0;
  for (int j = 0; j < (1 << level); ++j)
    if ((word >> (j * width)) & (width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1)) out |= std::uint64_t{1} << j;
  return out;
}

// For lines (rows, or columns) each with its word of filled finest parts
// across (the column parts of a row), the count of filled lines per block
// of every grid [2^a lines' parts, 2^b parts across]; `transpose` keys the
// blocks (part across, line part) instead, for columns.
void count(const std::vector<std::uint64_t>& words, int line_finest, int across_finest, bool transpose, FilledLayout& layout) {
  const Index lines = static_cast<Index>(words.size());
  const Index per_finest = lines >> line_finest;
  for (int b = 0; b <= across_finest; ++b) {
    // Filled lines per (finest line part, part across at level b).
    std::vector<Index> at_finest(static_cast<size_t>(Index{1} << (line_finest + b)), 0);
    for (Index l = 0; l < lines; ++l) {
      std::uint64_t w = fold(words[static_cast<size_t>(l)], across_finest, b);
      const Index part = l / per_finest;
      for (; w; w &= w - 1) ++at_finest[static_cast<size_t>((part << b) + __builtin_ctzll(w))];
    }
    for (int a = 0; a <= line_finest; ++a) {
      const Shape grid = transpose ? Shape{Index{1} << b, Index{1} << a} : Shape{Index{1} << a, Index{1} << b};
      FilledByBlock& blocks = layout.by_grid[grid];
      for (Index i = 0; i < (Index{1} << a); ++i)
        for (Index j = 0; j < (Index{1} << b); ++j) {
          Index n = 0;
          for (Index f = i << (line_finest - a); f < (i + 1) << (line_finest - a); ++f) n += at_finest[static_cast<size_t>((f << b) + j)];
          FilledLines& lines_of = blocks[transpose ? Key{j, i} : Key{i, j}];
          (transpose ? lines_of.cols : lines_of.rows) = n;
        }
    }
  }
}

}  // namespace

FilledLayout filled_layout(const CoordinateLists& src, const Shape& shape) {
  const OpenCoordinateLists lists(src);
  const int row_finest = finest_level(shape[0]), col_finest = finest_level(shape[1]);
  const Index row_part = shape[0] >> row_finest, col_part = shape[1] >> col_finest;
  // Per row, the finest column parts it has an entry in; per column, the
  // finest row parts.
  std::vector<std::uint64_t> by_row(static_cast<size_t>(shape[0]), 0), by_col(static_cast<size_t>(shape[1]), 0);
  std::vector<long long> rows, cols;
  for (hsize_t from = 0; from < lists.length(); from += kCoordinatePiece) {
    const hsize_t n = std::min(kCoordinatePiece, lists.length() - from);
    lists.read_places(from, n, rows, cols);
    for (hsize_t i = 0; i < n; ++i) {
      const long long r = rows[i], c = cols[i];
      if (r < 0 || r >= shape[0] || c < 0 || c >= shape[1]) continue;
      by_row[static_cast<size_t>(r)] |= std::uint64_t{1} << (c / col_part);
      by_col[static_cast<size_t>(c)] |= std::uint64_t{1} << (r / row_part);
    }
  }
  FilledLayout layout;
  count(by_row, row_finest, col_finest, false, layout);
  count(by_col, col_finest, row_finest, true, layout);
  return layout;
}

}  // namespace tra::io::hdf5
