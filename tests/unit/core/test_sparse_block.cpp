// A sparse block keeps exactly its entries, by row and by column (its
// transpose), whatever order they came in, and rounds values once to its type.
#include <gtest/gtest.h>

#include <algorithm>

#include "tra/common/error.hpp"
#include "tra/core/sparse_block.hpp"

namespace tra {
namespace {

std::vector<int> host(const OrdinalData& d) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  return std::vector<int>(h.data(), h.data() + h.extent(0));
}

TEST(SparseBlock, HoldsItsEntriesByRowAndByColumn) {
  // 3 x 4, given out of order; row 1 empty.
  const std::vector<SparseEntry> given = {{2, 3, 5.0}, {0, 1, 1.5}, {2, 0, -2.0}, {0, 3, 0.25}};
  const SparseBlock b = SparseBlock::from_entries(3, 4, given);
  EXPECT_EQ(b.rows(), 3);
  EXPECT_EQ(b.cols(), 4);
  EXPECT_EQ(b.stored(), 4);
  EXPECT_EQ(host(b.by_row.row_start), (std::vector<int>{0, 2, 2, 4}));
  EXPECT_EQ(host(b.by_row.columns), (std::vector<int>{1, 3, 0, 3}));
  EXPECT_EQ(b.by_row.values.to_host(), (std::vector<double>{1.5, 0.25, -2.0, 5.0}));
  // The transpose: 4 x 3, column 0 holds (2, 0) ...
  EXPECT_EQ(host(b.by_column.row_start), (std::vector<int>{0, 1, 2, 2, 4}));
  EXPECT_EQ(host(b.by_column.columns), (std::vector<int>{2, 0, 0, 2}));
  EXPECT_EQ(b.by_column.values.to_host(), (std::vector<double>{-2.0, 1.5, 0.25, 5.0}));
  std::vector<SparseEntry> sorted = given;
  std::sort(sorted.begin(), sorted.end(), [](const SparseEntry& x, const SparseEntry& y) { return x.row != y.row ? x.row < y.row : x.col < y.col; });
  const std::vector<SparseEntry> back = b.entries();
  ASSERT_EQ(back.size(), sorted.size());
  for (size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].row, sorted[i].row);
    EXPECT_EQ(back[i].col, sorted[i].col);
    EXPECT_EQ(back[i].value, sorted[i].value);
  }
}

TEST(SparseBlock, Float32ValuesAreRoundedOnceAndAnEmptyBlockIsFine) {
  const SparseBlock b = SparseBlock::from_entries(2, 2, {{1, 1, 0.1}}, DType::Float32);
  EXPECT_EQ(b.dtype(), DType::Float32);
  EXPECT_EQ(b.entries().at(0).value, static_cast<double>(0.1f));
  const SparseBlock empty = SparseBlock::from_entries(5, 3, {});
  EXPECT_EQ(empty.stored(), 0);
  EXPECT_EQ(host(empty.by_row.row_start), std::vector<int>(6, 0));
  EXPECT_EQ(host(empty.by_column.row_start), std::vector<int>(4, 0));
}

TEST(SparseBlock, AChunkCarriesABlockAndRefusesToBeReadDense) {
  const Chunk c = Chunk::of_block(std::make_shared<const SparseBlock>(SparseBlock::from_entries(3, 4, {{1, 2, 7.0}}, DType::Float32)));
  EXPECT_TRUE(c.is_sparse());
  EXPECT_EQ(c.shape, (Shape{3, 4}));
  EXPECT_EQ(c.dtype, DType::Float32);
  EXPECT_EQ(c.sparse->stored(), 1);
  EXPECT_THROW(c.to_host(), InternalError);
  EXPECT_THROW(c.elements<float>(), InternalError);
  EXPECT_FALSE(Chunk(Shape{2}).is_sparse());
}

}  // namespace
}  // namespace tra
