// IndexVector, the inline vector behind Key and Shape: the same results as
// std::vector<Index> for every edit, on both sides of the inline capacity.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "tra/core/index_vector.hpp"

using tra::Index;
using tra::IndexVector;

namespace {

std::vector<Index> as_vector(const IndexVector& v) { return std::vector<Index>(v.begin(), v.end()); }

TEST(TraIndexVector, RandomEditsMatchStdVector) {
  std::mt19937 rng(5);
  auto draw = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  IndexVector v;
  std::vector<Index> ref;
  for (int step = 0; step < 4000; ++step) {
    switch (draw(0, 6)) {
      case 0:
      case 1: {
        const Index x = draw(-50, 50);
        v.push_back(x);
        ref.push_back(x);
        break;
      }
      case 2:
        if (!ref.empty()) {
          v.pop_back();
          ref.pop_back();
        }
        break;
      case 3: {
        const auto n = static_cast<size_t>(draw(0, 14));
        const Index fill = draw(0, 9);
        v.resize(n, fill);
        ref.resize(n, fill);
        break;
      }
      case 4: {
        const auto at = static_cast<long>(draw(0, static_cast<int>(ref.size())));
        const Index x = draw(0, 9);
        v.insert(v.begin() + at, x);
        ref.insert(ref.begin() + at, x);
        break;
      }
      case 5:
        if (!ref.empty()) {
          const auto at = static_cast<long>(draw(0, static_cast<int>(ref.size()) - 1));
          v.erase(v.begin() + at);
          ref.erase(ref.begin() + at);
        }
        break;
      default: {  // copies and moves, inline and on the heap
        IndexVector copy = v;
        IndexVector moved = std::move(copy);
        EXPECT_TRUE(copy.empty());  // NOLINT: a moved-from IndexVector is empty
        v = moved;
        break;
      }
    }
    ASSERT_EQ(as_vector(v), ref) << "step " << step;
    ASSERT_EQ(v.size(), ref.size());
  }
}

TEST(TraIndexVector, OrderEqualityAndConversions) {
  const IndexVector a{1, 2, 3}, b{1, 2, 4}, c{1, 2};
  EXPECT_LT(a, b);
  EXPECT_LT(c, a);
  EXPECT_EQ(a, (IndexVector{1, 2, 3}));
  EXPECT_NE(a, c);
  const std::vector<Index> long_one{1, 2, 3, 4, 5, 6, 7, 8, 9};
  const IndexVector big = long_one;
  EXPECT_EQ(static_cast<std::vector<Index>>(big), long_one);
  EXPECT_LT(a, big);
  std::set<IndexVector> sorted{b, big, c, a};
  EXPECT_EQ(*sorted.begin(), c);
  EXPECT_EQ(IndexVector(3, 7), (IndexVector{7, 7, 7}));
  EXPECT_EQ(IndexVector(2).back(), 0);
  EXPECT_THROW(a.at(3), std::out_of_range);
}

}  // namespace
