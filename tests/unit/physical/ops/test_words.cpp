// An operator's words (ops/<kind>.cpp, IaNode::words): derived from its
// parameters, so a rule that edits only parameters leaves no stale words
// behind in EXPLAIN or the run reports.
#include <gtest/gtest.h>

#include <string>

#include "tra/app/plan_deck.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::physical {
namespace {

IaPlan row_sums_plan() {
  const std::string deck =
      "tensors:\n"
      "  - {name: A, shape: [64, 32], source: \"uniform(-1, 1, 3)\"}\n"
      "graph:\n"
      "  - \"S[i] = sum_j A[i,j]\"\n"
      "outputs:\n  - {tensor: S, file: out.h5}\n";
  return app::plan_deck(io::parse_deck(deck, "deck.yaml", ""), 2, {}).optimized.initial;
}

int first_of(const IaPlan& p, IaKind kind) {
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].kind() == kind) return static_cast<int>(i);
  return -1;
}

// The aggregation that sums the rows.
int the_sum(const IaPlan& p) {
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].kind() == IaKind::LocalAgg && p.nodes[i].agg().kernel.fold() == einsum::AggOp::Sum) return static_cast<int>(i);
  return -1;
}

TEST(IaWords, FollowTheParameters) {
  IaPlan p = row_sums_plan();
  const int scan = first_of(p, IaKind::Scan), agg = the_sum(p);
  ASSERT_GE(scan, 0);
  ASSERT_GE(agg, 0);
  const int shuffle = p.node(agg).inputs.at(0);
  ASSERT_EQ(p.node(shuffle).kind(), IaKind::Shuffle);
  EXPECT_EQ(p.node(scan).words(), "A");
  EXPECT_EQ(p.node(shuffle).words(), "<0>");
  EXPECT_EQ(p.node(agg).words(), "<0>, sum");

  // A rule's edits of parameters alone: the words change with them.
  p.node(shuffle).placement().dims = {0, 1};
  EXPECT_EQ(p.node(shuffle).words(), "<0,1>");
  p.node(scan).placement() = Placement::all();
  EXPECT_EQ(p.node(scan).words(), "A, read on every site");
  p.node(agg).agg().phase = AggParams::Phase::Partial;
  EXPECT_EQ(p.node(agg).words(), "<0>, sum (partial)");
  p.node(agg).agg().phase = AggParams::Phase::Final;
  p.node(agg).agg().kernel.finish = ArrayFn::of(ArrayFn::Diagonal{});
  EXPECT_EQ(p.node(agg).words(), "diag∘<0>, sum (final)");
}

// A face of a larger grid (scan-face) names that grid, its dimensions in
// the order of their strides: the face's own 4x2 on strides 2,1 and the
// spread dimension of 2 sites on stride 8 make a 2x4x2 grid.
TEST(IaWords, AFaceNamesTheGridItLiesOn) {
  IaPlan p = row_sums_plan();
  IaNode& scan = p.node(first_of(p, IaKind::Scan));
  Placement face = Placement::part({0, 1}, {4, 2});
  face.grid = {4, 2};
  face.strides = {2, 1};
  face.spread = {{2, 8}};
  scan.placement() = face;
  EXPECT_EQ(scan.words(), "A, read on the face of 2x4x2");
}

}  // namespace
}  // namespace tra::physical
