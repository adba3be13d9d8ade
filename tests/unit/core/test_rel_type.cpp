// A relation type's bytes per tuple: a dense chunk's elements, or a sparse
// block's entries twice (by row and by column: a value and a column number
// each) and its two row-offset arrays; and what it prints.
#include <gtest/gtest.h>

#include "tra/core/rel_type.hpp"

namespace tra {
namespace {

TEST(RelType, ADenseTupleIsItsElementsAndASparseOneItsStoredEntries) {
  RelType dense{{2, 2}, {500, 400}, DType::Float32};
  EXPECT_FALSE(dense.sparse());
  EXPECT_EQ(dense.bytes_per_tuple(), 500.0 * 400 * 4);
  EXPECT_EQ(dense.str(), "f=[2, 2] b=[500, 400] float32");
  RelType sparse{{2, 2}, {500, 400}, DType::Float64, 3250};
  EXPECT_TRUE(sparse.sparse());
  EXPECT_EQ(sparse.bytes_per_tuple(), 2 * 3250 * (8 + 4) + (501 + 401) * 4.0);
  EXPECT_EQ(sparse.str(), "f=[2, 2] b=[500, 400] sparse, 3250 entries per block");
  EXPECT_FALSE(sparse == (RelType{{2, 2}, {500, 400}, DType::Float64}));
}

}  // namespace
}  // namespace tra
