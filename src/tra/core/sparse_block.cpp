#include "tra/core/sparse_block.hpp"

#include <algorithm>
#include <limits>

#include "tra/common/error.hpp"

namespace tra {

namespace {

// A CSR held in Kokkos Views, copied from host arrays.
Csr to_views(Index rows, Index cols, const std::vector<int>& row_start, const std::vector<int>& columns, const std::vector<double>& values,
             DType dtype) {
  Csr c;
  c.rows = rows;
  c.cols = cols;
  c.row_start = OrdinalData(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sparse-row-start"), row_start.size());
  c.columns = OrdinalData(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sparse-columns"), columns.size());
  Kokkos::deep_copy(c.row_start, Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(row_start.data(), row_start.size()));
  Kokkos::deep_copy(c.columns, Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(columns.data(), columns.size()));
  c.values = Chunk::from_host(Shape{static_cast<Index>(values.size())}, values, dtype);
  std::vector<int> filled;
  for (Index r = 0; r < rows; ++r)
    if (row_start[static_cast<size_t>(r) + 1] > row_start[static_cast<size_t>(r)]) filled.push_back(static_cast<int>(r));
  c.filled_rows = OrdinalData(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sparse-filled-rows"), filled.size());
  Kokkos::deep_copy(c.filled_rows, Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(filled.data(), filled.size()));
  return c;
}

template <class T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

bool by_row_then_col(const SparseEntry& a, const SparseEntry& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; }

}  // namespace

SparseBlock SparseBlock::from_csr(Index rows, Index cols, std::vector<int> row_start, std::vector<int> columns, std::vector<double> values,
                                  DType dtype) {
  TRA_ASSERT(columns.size() < static_cast<size_t>(std::numeric_limits<int>::max()) && rows < std::numeric_limits<int>::max() &&
                 cols < std::numeric_limits<int>::max(),
             "a sparse block of " << rows << " x " << cols << " with " << columns.size() << " entries: beyond int ordinals");
  TRA_ASSERT(
      row_start.size() == static_cast<size_t>(rows) + 1 && row_start.front() == 0 && static_cast<size_t>(row_start.back()) == columns.size() &&
          values.size() == columns.size(),
      "a CSR of " << rows << " rows with " << row_start.size() << " offsets, " << columns.size() << " columns and " << values.size() << " values");
  for (Index r = 0; r < rows; ++r)
    for (int i = row_start[static_cast<size_t>(r)]; i < row_start[static_cast<size_t>(r) + 1]; ++i) {
      const int c = columns[static_cast<size_t>(i)];
      TRA_ASSERT(c >= 0 && c < cols, "entry (" << r << ", " << c << ") outside a block of " << rows << " x " << cols);
      TRA_ASSERT(i == row_start[static_cast<size_t>(r)] || columns[static_cast<size_t>(i) - 1] < c,
                 "row " << r << "'s columns are not ascending and distinct at " << c);
    }
  SparseBlock b;
  b.by_row = to_views(rows, cols, row_start, columns, values, dtype);
  // The transpose by counting: walking the rows in order leaves each
  // column's rows ascending.
  std::vector<int> column_start(static_cast<size_t>(cols) + 1, 0);
  for (int c : columns) ++column_start[static_cast<size_t>(c) + 1];
  for (Index c = 0; c < cols; ++c) column_start[static_cast<size_t>(c) + 1] += column_start[static_cast<size_t>(c)];
  std::vector<int> next(column_start.begin(), column_start.end() - 1), row_of(columns.size());
  std::vector<double> value_of(values.size());
  for (Index r = 0; r < rows; ++r)
    for (int i = row_start[static_cast<size_t>(r)]; i < row_start[static_cast<size_t>(r) + 1]; ++i) {
      const size_t at = static_cast<size_t>(next[static_cast<size_t>(columns[static_cast<size_t>(i)])]++);
      row_of[at] = static_cast<int>(r);
      value_of[at] = values[static_cast<size_t>(i)];
    }
  release(row_start);
  release(columns);
  release(values);
  release(next);
  b.by_column = to_views(cols, rows, column_start, row_of, value_of, dtype);
  return b;
}

SparseBlock SparseBlock::from_entries(Index rows, Index cols, std::vector<SparseEntry> entries, DType dtype) {
  std::sort(entries.begin(), entries.end(), by_row_then_col);
  std::vector<int> row_start(static_cast<size_t>(rows) + 1, 0), columns(entries.size());
  std::vector<double> values(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const SparseEntry& e = entries[i];
    TRA_ASSERT(e.row >= 0 && e.row < rows, "entry (" << e.row << ", " << e.col << ") outside a block of " << rows << " x " << cols);
    ++row_start[static_cast<size_t>(e.row) + 1];
    columns[i] = static_cast<int>(e.col);
    values[i] = e.value;
  }
  for (Index r = 0; r < rows; ++r) row_start[static_cast<size_t>(r) + 1] += row_start[static_cast<size_t>(r)];
  return from_csr(rows, cols, std::move(row_start), std::move(columns), std::move(values), dtype);
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
