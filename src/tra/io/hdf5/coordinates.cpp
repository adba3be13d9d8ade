#include "tra/io/hdf5/coordinates.hpp"

#include <algorithm>
#include <unordered_map>

#include "tra/common/error.hpp"

namespace tra::io::hdf5 {

namespace {

// Entries read per piece: 24 MiB of buffers, whatever the lists' length.
constexpr hsize_t kPiece = hsize_t{1} << 20;

}  // namespace

std::vector<SparseBlock> read_sparse_blocks(const CoordinateLists& src, const Shape& tensor_shape, const Shape& block, const std::vector<Key>& keys,
                                            DType dtype, Index first_row) {
  TRA_ASSERT(tensor_shape.size() == 2 && block.size() == 2 && tensor_shape[0] % block[0] == 0 && tensor_shape[1] % block[1] == 0,
             "sparse blocks of " << shape_string(block) << " for a tensor of " << shape_string(tensor_shape));
  TRA_ASSERT(first_row == 0 || src.index_list(), "a batch of coordinate lists");
  const Index block_cols = tensor_shape[1] / block[1];
  std::unordered_map<Index, size_t> slot;  // linearized block key -> index in keys
  for (size_t i = 0; i < keys.size(); ++i) slot[keys[i][0] * block_cols + keys[i][1]] = i;
  // Each block's entries, with their places in the lists (for a duplicate's message).
  std::vector<std::vector<SparseEntry>> entries(keys.size());
  std::vector<std::vector<hsize_t>> places(keys.size());
  const OpenCoordinateLists lists(src);
  std::vector<long long> rows, cols;
  std::vector<double> values;
  // An index list holds one entry per row: a batch reads only its rows'.
  const hsize_t begin = static_cast<hsize_t>(first_row);
  const hsize_t end = src.index_list() ? begin + static_cast<hsize_t>(tensor_shape[0]) : lists.length();
  if (end > lists.length())  // the deck's check saw it long enough: the file changed since
    throw UserError("the index '" + src.cols + "' of '" + src.file + "' holds " + std::to_string(lists.length()) +
                    " entries, but the tensor reads entries " + std::to_string(begin) + " to " + std::to_string(end - 1) +
                    " (was the file changed since the deck was read?)");
  for (hsize_t from = begin; from < end; from += kPiece) {
    const hsize_t n = std::min(kPiece, end - from);
    lists.read(from, n, rows, cols, values);
    for (hsize_t i = 0; i < n; ++i) {
      const long long r = rows[i] - first_row, c = cols[i];
      if (src.index_list() && (c < 0 || c >= tensor_shape[1]))
        throw UserError("entry " + std::to_string(from + i) + " of the index '" + src.cols + "' of '" + src.file + "' is " + std::to_string(c) +
                        ", outside the tensor's " + std::to_string(tensor_shape[1]) + " columns (0 to " + std::to_string(tensor_shape[1] - 1) + ")");
      if (r < 0 || r >= tensor_shape[0] || c < 0 || c >= tensor_shape[1])
        throw UserError("entry " + std::to_string(from + i) + " of the coordinate lists of '" + src.file + "' is at (" + std::to_string(r) + ", " +
                        std::to_string(c) + "), outside the tensor's " + shape_string(tensor_shape));
      const auto it = slot.find((r / block[0]) * block_cols + c / block[1]);
      if (it == slot.end()) continue;
      entries[it->second].push_back({r % block[0], c % block[1], values[i]});
      places[it->second].push_back(from + i);
    }
  }
  std::vector<SparseBlock> out;
  out.reserve(keys.size());
  for (size_t b = 0; b < keys.size(); ++b) {
    // Ordered by place in the block, then by place in the lists: a duplicate is a neighbour.
    std::vector<size_t> order(entries[b].size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto& e = entries[b];
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return e[x].row != e[y].row ? e[x].row < e[y].row : e[x].col != e[y].col ? e[x].col < e[y].col : x < y;
    });
    for (size_t i = 1; i < order.size(); ++i)
      if (e[order[i]].row == e[order[i - 1]].row && e[order[i]].col == e[order[i - 1]].col)
        throw UserError("entries " + std::to_string(places[b][order[i - 1]]) + " and " + std::to_string(places[b][order[i]]) +
                        " of the coordinate lists of '" + src.file + "' are both at (" + std::to_string(keys[b][0] * block[0] + e[order[i]].row) +
                        ", " + std::to_string(keys[b][1] * block[1] + e[order[i]].col) +
                        "); a sparse tensor holds one entry per place (sum duplicates before writing them)");
    out.push_back(SparseBlock::from_entries(block[0], block[1], std::move(entries[b]), dtype));
  }
  return out;
}

}  // namespace tra::io::hdf5
