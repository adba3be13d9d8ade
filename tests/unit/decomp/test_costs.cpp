// The cost terms of EinDecomp §7 against the paper's worked numbers.
#include <gtest/gtest.h>

#include "tra/decomp/costs.hpp"
#include "tra/decomp/viable.hpp"
#include "unit/decomp/paper_examples.hpp"

using namespace tra;
using namespace tra::decomp;
using tra::decomp::testing::matmul;
using tra::decomp::testing::paper_d;

TEST(Costs, JoinOfTheTopLeftCaseOfFigure2) {
  // ℓX = [i, j], ℓY = [j, k], b = [8, 8, 8, 8], d = [4, 1, 1, 4]: b/d = [2, 8, 8, 2],
  // n_X = n_Y = 16, and with the paper's p = 8 the cost is 8 · (16 + 16).
  const Vertex v = matmul(8, 8, 8);
  const Partitioning d = paper_d(4, 1, 1, 4);
  EXPECT_DOUBLE_EQ(cost_join(v, d, 8), 8.0 * (16 + 16));
  // That d makes 16 kernel calls (Figure 1); costed by what it does, each call
  // receives its two 16-float sub-tensors.
  EXPECT_EQ(kernel_calls(v, d), 16);
  EXPECT_DOUBLE_EQ(cost_join(v, d), 16.0 * (16 + 16));
  // d = [2, 2, 2, 4]: n_X = 4 · 4, n_Y = 4 · 2, 16 calls.
  EXPECT_DOUBLE_EQ(cost_join(v, paper_d(2, 2, 2, 4)), 16.0 * (16 + 8));
}

TEST(Costs, AggregationOfFigure2) {
  const Vertex v = matmul(8, 8, 8);
  // Top-left: ℓagg = [j] is not split, n_agg = 1: no aggregation cost.
  EXPECT_DOUBLE_EQ(cost_agg(v, paper_d(4, 1, 1, 4)), 0.0);
  // Bottom-right, d = [2, 2, 2, 4]: n_agg = 2, n_Z = 2 × 4 = 8, 16/2 · (2 − 1) · 8 = 64.
  EXPECT_DOUBLE_EQ(cost_agg(v, paper_d(2, 2, 2, 4)), 64.0);
  // d = [2, 4, 4, 2]: n_agg = 4, n_Z = 4 · 4, 16/4 · 3 · 16.
  EXPECT_DOUBLE_EQ(cost_agg(v, paper_d(2, 4, 4, 2)), 4.0 * 3 * 16);
}

TEST(Costs, RepartitionFromTheProducerToTheConsumerOfFigure4) {
  // Producer d = [2, 2, 2, 4] leaves Z on grid [2, 4]; the consumer
  // d = [4, 1, 1, 4] wants its left input on grid [4, 1]: 128 + 192 = 320.
  const Vertex producer = matmul(8, 8, 8), consumer = matmul(8, 8, 8);
  const Shape from = producer.output_grid(paper_d(2, 2, 2, 4));
  const Shape to = consumer.input_grid(paper_d(4, 1, 1, 4), 0);
  EXPECT_EQ(from, (Shape{2, 4}));
  EXPECT_EQ(to, (Shape{4, 1}));
  EXPECT_DOUBLE_EQ(cost_repart(from, to, {8, 8}), 128.0 + 192.0);
}

TEST(Costs, RepartitionInOtherDirections) {
  EXPECT_DOUBLE_EQ(cost_repart({2, 4}, {2, 4}, {8, 8}), 0.0);  // same grid: nothing moves
  // Finer consumer chunks: each of the 4 consumer chunks is cut from the one
  // 64-float producer chunk, which is sent to it: 4 · 64.
  EXPECT_DOUBLE_EQ(cost_repart({1, 1}, {2, 2}, {8, 8}), 4.0 * 64);
  // Coarser: the one consumer chunk gathers 4 producer chunks of 16; it starts
  // from the first and travels to the three others, growing: (4 − 1) · (64 + 16).
  EXPECT_DOUBLE_EQ(cost_repart({2, 2}, {1, 1}, {8, 8}), 3.0 * (64 + 16));
}

TEST(Costs, ElementWiseStatementsPayOnlyTheirOneInput) {
  const auto e = einsum::parse_einsum("R[a,b] = relu(H[a,b])", SourceLoc{"test", 1, 1});
  const Vertex v = make_vertex(e, {{"a", 8}, {"b", 8}});
  EXPECT_DOUBLE_EQ(cost_join(v, {2, 2}), 4.0 * 16);
  EXPECT_DOUBLE_EQ(cost_agg(v, {2, 2}), 0.0);
}

TEST(Costs, StatementTotalAddsEveryTerm) {
  StatementCost c;
  c.join = 256;
  c.agg = 64;
  c.repart = {{"X", 320}, {"Y", 0}};
  EXPECT_DOUBLE_EQ(c.total(), 640.0);
}
