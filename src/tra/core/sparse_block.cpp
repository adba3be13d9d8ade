#include "tra/core/sparse_block.hpp"

#include <algorithm>
#include <limits>

#include "tra/common/error.hpp"

namespace tra {

namespace {

// The CSR of `entries` (sorted by row, then column) as rows x cols.
Csr compress(Index rows, Index cols, const std::vector<SparseEntry>& entries, DType dtype) {
  Csr c;
  c.rows = rows;
  c.cols = cols;
  c.row_start = OrdinalData("sparse-row-start", static_cast<size_t>(rows) + 1);
  c.columns = OrdinalData(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sparse-columns"), entries.size());
  auto start = Kokkos::create_mirror_view(c.row_start);
  auto columns = Kokkos::create_mirror_view(c.columns);
  Kokkos::deep_copy(start, 0);
  std::vector<double> values(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    start(static_cast<size_t>(entries[i].row) + 1) += 1;
    columns(i) = static_cast<int>(entries[i].col);
    values[i] = entries[i].value;
  }
  for (Index r = 0; r < rows; ++r) start(static_cast<size_t>(r) + 1) += start(static_cast<size_t>(r));
  Kokkos::deep_copy(c.row_start, start);
  Kokkos::deep_copy(c.columns, columns);
  c.values = Chunk::from_host(Shape{static_cast<Index>(entries.size())}, values, dtype);
  return c;
}

bool by_row_then_col(const SparseEntry& a, const SparseEntry& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; }

}  // namespace

SparseBlock SparseBlock::from_entries(Index rows, Index cols, std::vector<SparseEntry> entries, DType dtype) {
  TRA_ASSERT(entries.size() < static_cast<size_t>(std::numeric_limits<int>::max()) && rows < std::numeric_limits<int>::max() &&
                 cols < std::numeric_limits<int>::max(),
             "a sparse block of " << rows << " x " << cols << " with " << entries.size() << " entries: beyond int ordinals");
  std::sort(entries.begin(), entries.end(), by_row_then_col);
  for (size_t i = 0; i < entries.size(); ++i) {
    const SparseEntry& e = entries[i];
    TRA_ASSERT(e.row >= 0 && e.row < rows && e.col >= 0 && e.col < cols,
               "entry (" << e.row << ", " << e.col << ") outside a block of " << rows << " x " << cols);
    TRA_ASSERT(i == 0 || by_row_then_col(entries[i - 1], e), "two entries at (" << e.row << ", " << e.col << ")");
  }
  SparseBlock b;
  b.by_row = compress(rows, cols, entries, dtype);
  for (SparseEntry& e : entries) std::swap(e.row, e.col);
  std::sort(entries.begin(), entries.end(), by_row_then_col);
  b.by_column = compress(cols, rows, entries, dtype);
  return b;
}

std::vector<SparseEntry> SparseBlock::entries() const {
  auto start = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_row.row_start);
  auto columns = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_row.columns);
  const std::vector<double> values = by_row.values.to_host();
  std::vector<SparseEntry> out;
  out.reserve(values.size());
  for (Index r = 0; r < by_row.rows; ++r)
    for (int i = start(static_cast<size_t>(r)); i < start(static_cast<size_t>(r) + 1); ++i)
      out.push_back({r, columns(static_cast<size_t>(i)), values[static_cast<size_t>(i)]});
  return out;
}

}  // namespace tra
