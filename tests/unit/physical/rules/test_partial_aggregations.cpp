// partial_aggregations (rules/join_strategies.hpp): an aggregation a strategy
// left as partial results must get its shuffle back, unless it is the first
// phase of a two-phase aggregation (R2-5), whose shuffle feeds the same
// aggregation's second phase. Plans built by hand on 2 sites.
#include <gtest/gtest.h>

#include "tra/physical/infer.hpp"
#include "tra/physical/plan_edit.hpp"
#include "tra/physical/rules/join_strategies.hpp"

namespace tra::physical {
namespace {

using Kind = IaNode::Kind;

// R[i,j] on Part<1> (the two j-blocks of a row on two sites), summed over j
// in place: each row's sum is left in two partial results.
struct Partial {
  IaPlan plan;
  int agg = -1;
};

Partial partial_sums() {
  Partial x;
  x.plan.nsites = 2;
  IaNode r;
  r.params = ScanParams{std::nullopt, Placement::part({1}, {2, 2}), {}};
  r.out_type = RelType{{2, 2}, {1, 1}};
  r.tra_node = 0;
  const int scan = add_node(x.plan, r);
  IaNode a;
  a.params = AggParams{{0}, AggKernel{AggKernel::Fold{einsum::AggOp::Sum}, {}}, 0, true};
  a.inputs = {scan};
  a.out_type = RelType{{2}, {1, 1}};
  a.tra_node = 1;
  x.agg = add_node(x.plan, a);
  return x;
}

std::vector<int> all(const IaPlan& p) {
  std::vector<int> v(p.nodes.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i);
  return v;
}

TEST(PartialAggregations, ASecondPhaseMakesAFirstPhase) {
  Partial x = partial_sums();
  const int sh = add_node(x.plan, make_shuffle(x.agg, {0}));
  IaNode second = x.plan.node(x.agg);
  second.inputs = {sh};
  x.plan.roots = {add_node(x.plan, second)};
  infer(x.plan);
  ASSERT_TRUE(x.plan.node(x.agg).scattered);
  EXPECT_TRUE(partial_aggregations(x.plan, all(x.plan)).empty());
  EXPECT_EQ(invalid_reason(x.plan), "");
}

TEST(PartialAggregations, AShuffleToAJoinLeavesThemUncombined) {
  // The partial sums shuffled on i straight into a join (a co-partitioning
  // strategy's shuffle): each row meets the other input twice. This was
  // taken for a first phase, and no strategy after it could be tried.
  Partial x = partial_sums();
  const int sh = add_node(x.plan, make_shuffle(x.agg, {0}));
  IaNode s;
  s.params = ScanParams{std::nullopt, Placement::part({0}, {2}), {}};
  s.out_type = RelType{{2}, {1, 1}};
  s.tra_node = 2;
  const int other = add_node(x.plan, s);
  IaNode j;
  j.params = JoinParams{};
  j.join().keys_left = {0};
  j.join().keys_right = {0};
  j.inputs = {sh, other};
  j.out_type = RelType{{2}, {1, 1}};
  j.tra_node = 3;
  x.plan.roots = {add_node(x.plan, j)};
  infer(x.plan);
  ASSERT_TRUE(x.plan.node(x.agg).scattered);
  EXPECT_EQ(partial_aggregations(x.plan, all(x.plan)), std::vector<int>{x.agg});
  EXPECT_NE(invalid_reason(x.plan), "");
  // Given its shuffle back, the aggregation is whole and the plan valid.
  regroup(x.plan, {x.agg});
  normalize(x.plan);
  infer(x.plan);
  EXPECT_EQ(invalid_reason(x.plan), "");
}

}  // namespace
}  // namespace tra::physical
