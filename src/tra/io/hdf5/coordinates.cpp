#include "tra/io/hdf5/coordinates.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "tra/common/error.hpp"

namespace tra::io::hdf5 {

namespace {

// The lists' entries [begin, end) of a tensor of `shape` read in pieces,
// each checked inside the tensor (a located UserError otherwise: every rank
// reads every entry, so every rank finds it) and handed to
// visit(place, row, col, value) (value 0 when `values` is false: a
// counting pass reads only the places).
template <class Visit>
void for_each_entry(const OpenCoordinateLists& lists, const CoordinateLists& src, const Shape& shape, hsize_t begin, hsize_t end, Index first_row,
                    bool values, Visit&& visit) {
  std::vector<long long> rows, cols;
  std::vector<double> vals;
  for (hsize_t from = begin; from < end; from += kCoordinatePiece) {
    const hsize_t n = std::min(kCoordinatePiece, end - from);
    if (values) lists.read(from, n, rows, cols, vals);
    else lists.read_places(from, n, rows, cols);
    for (hsize_t i = 0; i < n; ++i) {
      const long long r = rows[i] - first_row, c = cols[i];
      if (src.index_list() && (c < 0 || c >= shape[1]))
        throw UserError("entry " + std::to_string(from + i) + " of the index '" + src.cols + "' of '" + src.file + "' is " + std::to_string(c) +
                        ", outside the tensor's " + std::to_string(shape[1]) + " columns (0 to " + std::to_string(shape[1] - 1) + ")");
      if (r < 0 || r >= shape[0] || c < 0 || c >= shape[1])
        throw UserError("entry " + std::to_string(from + i) + " of the coordinate lists of '" + src.file + "' is at (" + std::to_string(r) + ", " +
                        std::to_string(c) + "), outside the tensor's " + shape_string(shape));
      visit(from + i, r, c, values ? vals[i] : 0.0);
    }
  }
}

// One block's CSR as the reader fills it: counted, then placed row by row.
struct BlockCsr {
  std::vector<int> row_start;  // counts at [r + 1] in the first pass, then offsets
  std::vector<int> columns;
  std::vector<double> values;
  std::vector<int> filled;  // entries placed in each row so far
};

}  // namespace

// Two passes over the lists, so that a rank holds its blocks' CSR and
// nothing the size of its entries beside it: the first counts each block's
// entries per row, the second places each entry at its row's next slot.
// Each row is then sorted by column; two entries at one place are found as
// neighbours there, and a third pass finds their places in the lists for
// the message.
std::vector<SparseBlock> read_sparse_blocks(const CoordinateLists& src, const Shape& tensor_shape, const Shape& block, const std::vector<Key>& keys,
                                            DType dtype, Index first_row) {
  TRA_ASSERT(tensor_shape.size() == 2 && block.size() == 2 && tensor_shape[0] % block[0] == 0 && tensor_shape[1] % block[1] == 0,
             "sparse blocks of " << shape_string(block) << " for a tensor of " << shape_string(tensor_shape));
  TRA_ASSERT(first_row == 0 || src.index_list(), "a batch of coordinate lists");
  const Index block_cols = tensor_shape[1] / block[1];
  std::unordered_map<Index, size_t> slot;  // linearized block key -> index in keys
  for (size_t i = 0; i < keys.size(); ++i) slot[keys[i][0] * block_cols + keys[i][1]] = i;
  auto block_of = [&](long long r, long long c) {
    const auto it = slot.find((r / block[0]) * block_cols + c / block[1]);
    return it == slot.end() ? -1 : static_cast<long>(it->second);
  };
  const OpenCoordinateLists lists(src);
  // An index list holds one entry per row: a batch reads only its rows'.
  const hsize_t begin = static_cast<hsize_t>(first_row);
  const hsize_t end = src.index_list() ? begin + static_cast<hsize_t>(tensor_shape[0]) : lists.length();
  if (end > lists.length())  // the deck's check saw it long enough: the file changed since
    throw UserError("the index '" + src.cols + "' of '" + src.file + "' holds " + std::to_string(lists.length()) +
                    " entries, but the tensor reads entries " + std::to_string(begin) + " to " + std::to_string(end - 1) +
                    " (was the file changed since the deck was read?)");

  std::vector<BlockCsr> csr(keys.size());
  for (BlockCsr& b : csr) b.row_start.assign(static_cast<size_t>(block[0]) + 1, 0);
  for_each_entry(lists, src, tensor_shape, begin, end, first_row, false, [&](hsize_t, long long r, long long c, double) {
    if (const long b = block_of(r, c); b >= 0) ++csr[static_cast<size_t>(b)].row_start[static_cast<size_t>(r % block[0]) + 1];
  });
  for (BlockCsr& b : csr) {
    long long total = 0;
    for (size_t r = 1; r < b.row_start.size(); ++r) {
      total += b.row_start[r];
      if (total >= std::numeric_limits<int>::max())
        throw UserError("the coordinate lists of '" + src.file + "' put " + std::to_string(total) + " or more entries in one block of " +
                        shape_string(block) + ", beyond the 2^31 a block holds: run on more ranks, or split the tensor into more blocks");
      b.row_start[r] = static_cast<int>(total);
    }
    b.columns.resize(static_cast<size_t>(total));
    b.values.resize(static_cast<size_t>(total));
    b.filled.assign(static_cast<size_t>(block[0]), 0);
  }
  for_each_entry(lists, src, tensor_shape, begin, end, first_row, true, [&](hsize_t, long long r, long long c, double v) {
    const long b = block_of(r, c);
    if (b < 0) return;
    BlockCsr& x = csr[static_cast<size_t>(b)];
    const size_t row = static_cast<size_t>(r % block[0]);
    const size_t at = static_cast<size_t>(x.row_start[row] + x.filled[row]++);
    x.columns[at] = static_cast<int>(c % block[1]);
    x.values[at] = v;
  });

  std::vector<SparseBlock> out;
  out.reserve(keys.size());
  std::vector<std::pair<int, double>> row;
  for (size_t b = 0; b < keys.size(); ++b) {
    BlockCsr& x = csr[b];
    std::vector<int>().swap(x.filled);
    for (size_t r = 0; r + 1 < x.row_start.size(); ++r) {
      const size_t from = static_cast<size_t>(x.row_start[r]), to = static_cast<size_t>(x.row_start[r + 1]);
      row.clear();
      for (size_t i = from; i < to; ++i) row.emplace_back(x.columns[i], x.values[i]);
      std::sort(row.begin(), row.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
      for (size_t i = 0; i < row.size(); ++i) {
        if (i > 0 && row[i].first == row[i - 1].first) {
          const long long at_row = keys[b][0] * block[0] + static_cast<long long>(r), at_col = keys[b][1] * block[1] + row[i].first;
          std::vector<hsize_t> places;
          for_each_entry(lists, src, tensor_shape, begin, end, first_row, false, [&](hsize_t place, long long rr, long long cc, double) {
            if (rr == at_row && cc == at_col && places.size() < 2) places.push_back(place);
          });
          throw UserError("entries " + std::to_string(places.at(0)) + " and " + std::to_string(places.at(1)) + " of the coordinate lists of '" +
                          src.file + "' are both at (" + std::to_string(at_row) + ", " + std::to_string(at_col) +
                          "); a sparse tensor holds one entry per place (sum duplicates before writing them)");
        }
        x.columns[from + i] = row[i].first;
        x.values[from + i] = row[i].second;
      }
    }
    out.push_back(SparseBlock::from_csr(block[0], block[1], std::move(x.row_start), std::move(x.columns), std::move(x.values), dtype));
  }
  return out;
}

}  // namespace tra::io::hdf5
