// Enough parallel work (EinDecomp §6, §8.1): the viable d's of a statement.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tra/decomp/partitioners.hpp"
#include "tra/decomp/viable.hpp"
#include "unit/decomp/paper_examples.hpp"

using namespace tra;
using namespace tra::decomp;
using tra::decomp::testing::matmul;
using tra::decomp::testing::paper_d;

namespace {

// (N + D − 1)! / (N! (D − 1)!): N balls in D buckets (§8.1).
Index balls_in_buckets(int n, int d) {
  Index c = 1;
  for (int i = 1; i <= d - 1; ++i) c = c * (n + i) / i;
  return c;
}

}  // namespace

TEST(Viable, KernelCallsCountEachLabelOnce) {
  // §6: d = [16, 2, 2, 4] gives 16 × 2 × 4 = 128 join results; the second 2 is the join predicate.
  EXPECT_EQ(kernel_calls(matmul(64, 64, 64), paper_d(16, 2, 2, 4)), 128);
  // Figure 1: all four partitionings make 16 kernel calls.
  for (const auto& d : {paper_d(4, 1, 1, 4), paper_d(2, 1, 1, 8), paper_d(2, 4, 4, 2), paper_d(2, 2, 2, 4)})
    EXPECT_EQ(kernel_calls(matmul(8, 8, 8), d), 16);
}

TEST(Viable, EightByEightMatmulOnEightKernelCalls) {
  // §8.2: the paper lists eight d's for the 8×8 product with p = 8.
  const Vertex v = matmul(8, 8, 8);
  const auto ds = viable(v, 8);
  for (const auto& d : {paper_d(2, 1, 1, 4), paper_d(4, 1, 1, 2), paper_d(8, 1, 1, 1), paper_d(1, 1, 1, 8), paper_d(2, 2, 2, 2), paper_d(4, 2, 2, 1),
                        paper_d(1, 2, 2, 4), paper_d(1, 8, 8, 1)})
    EXPECT_NE(std::find(ds.begin(), ds.end(), d), ds.end()) << "missing " << to_string(d);
  // Its own count (§8.1, N = 3 doublings over D = 3 labels) is 10: the list
  // leaves out [2, 4, 4, 1] and [1, 4, 4, 2], which also make 8 kernel calls.
  EXPECT_EQ(ds.size(), 10u);
  EXPECT_EQ(static_cast<Index>(ds.size()), balls_in_buckets(3, 3));
  EXPECT_NE(std::find(ds.begin(), ds.end(), paper_d(2, 4, 4, 1)), ds.end());
  EXPECT_NE(std::find(ds.begin(), ds.end(), paper_d(1, 4, 4, 2)), ds.end());
  std::set<Shape> outputs;
  for (const auto& d : ds) {
    EXPECT_EQ(kernel_calls(v, d), 8);
    outputs.insert(v.output_grid(d));
  }
  // The paper's output partitionings d_Z, plus [2, 1] and [1, 2] from the two it left out.
  for (const Shape& z : {Shape{2, 4}, Shape{4, 2}, Shape{8, 1}, Shape{1, 8}, Shape{2, 2}, Shape{4, 1}, Shape{1, 4}, Shape{1, 1}})
    EXPECT_TRUE(outputs.count(z)) << shape_string(z);
  EXPECT_EQ(outputs.size(), 10u);
}

TEST(Viable, TenDoublingsOverSixLabelsAre3003) {
  // §8.1: N = 10, D = 6 gives 3003 partitionings (bounds large enough not to limit them).
  const auto e = einsum::parse_einsum("Z[a,b,c] = sum_{d,e,f} X[a,b,d,e] * Y[d,e,c,f]", SourceLoc{"test", 1, 1});
  std::map<Label, Index> bound;
  for (const char* l : {"a", "b", "c", "d", "e", "f"}) bound[l] = 1024;
  const Vertex v = make_vertex(e, bound);
  ASSERT_EQ(v.labels.size(), 6u);
  const auto ds = viable(v, 1024);
  EXPECT_EQ(ds.size(), 3003u);
  EXPECT_EQ(balls_in_buckets(10, 6), 3003);
  EXPECT_EQ(std::set<Partitioning>(ds.begin(), ds.end()).size(), ds.size());
}

TEST(Viable, BoundsLimitTheDoublings) {
  // A label of bound 6 takes at most 2 parts, 12 at most 4, an odd one none.
  const Vertex v = matmul(6, 12, 5);
  for (const auto& d : viable(v, 8)) {
    EXPECT_EQ(6 % d[0], 0);
    EXPECT_EQ(d[1], 1);  // k: bound 5
    EXPECT_EQ(12 % d[2], 0);
  }
  EXPECT_EQ(viable(v, 8), (std::vector<Partitioning>{{2, 1, 4}}));  // i: 2, j: 4 — j: 8 does not divide 12
  EXPECT_TRUE(viable(v, 16).empty());
  EXPECT_TRUE(viable(v, 3).empty());  // not a power of two
  // viable_at_most falls back to the largest p the bounds allow.
  const auto most = viable_at_most(v, 16);
  ASSERT_FALSE(most.empty());
  for (const auto& d : most) EXPECT_EQ(kernel_calls(v, d), 8);
  EXPECT_EQ(viable_at_most(matmul(3, 5, 7), 8), (std::vector<Partitioning>{{1, 1, 1}}));
}

TEST(Viable, KernelCallsWantedRoundsRanksUpToAPowerOfTwo) {
  EXPECT_EQ(kernel_calls_wanted(1, 1), 1);
  EXPECT_EQ(kernel_calls_wanted(2, 1), 2);
  EXPECT_EQ(kernel_calls_wanted(3, 1), 4);
  EXPECT_EQ(kernel_calls_wanted(6, 2), 16);
  EXPECT_EQ(kernel_calls_wanted(8, 4), 32);
}
