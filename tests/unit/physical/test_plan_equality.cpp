// Plans are plain data (ia_plan.hpp, key_fn.hpp, chunk_fn.hpp): the same deck
// planned twice gives plans that compare equal and print alike, and a plan
// that differs in any one parameter compares unequal and prints differently.
#include <gtest/gtest.h>

#include <string>

#include "support/planned.hpp"

namespace tra::physical {
namespace {

const char* kDeck =
    "tensors:\n"
    "  - {name: X, shape: [64, 48], source: \"uniform(-1, 1, 1)\"}\n"
    "  - {name: W, shape: [48, 32], source: \"uniform(-1, 1, 2)\"}\n"
    "graph:\n"
    "  - \"H[i,k] = sum_j X[i,j] * W[j,k]\"\n"
    "  - \"R[i,k] = relu(H[i,k])\"\n"
    "  - {op: filter, input: R, output: F, where: \"k0 < 2\"}\n"
    "  - {op: rekey, input: F, output: G, key: \"[k1, k0]\"}\n"
    "outputs:\n  - {tensor: G, file: g.h5}\n";

IaPlan planned(const std::string& deck, int ranks, const std::string& strategy = "auto") {
  OptimizerOptions o;
  o.strategy = strategy;
  return test::planned(deck, ranks, o);
}

TEST(PlanEquality, TheSameDeckPlansToEqualPlans) {
  for (int ranks : {1, 2, 4}) {
    const IaPlan a = planned(kDeck, ranks), b = planned(kDeck, ranks);
    EXPECT_TRUE(a == b) << ranks << " ranks";
    EXPECT_EQ(a.parameters(), b.parameters());
  }
  EXPECT_TRUE(planned(kDeck, 2) != planned(kDeck, 4));
}

TEST(PlanEquality, EveryParameterCounts) {
  const IaPlan base = planned(kDeck, 4);
  int joins = 0, maps = 0, filters = 0, aggs = 0;
  for (size_t i = 0; i < base.nodes.size(); ++i) {
    const IaNode& n = base.nodes[i];
    std::vector<IaPlan> edited;
    auto edit = [&](auto change) {
      IaPlan p = base;
      change(p.nodes[i]);
      edited.push_back(std::move(p));
    };
    switch (n.kind()) {
      case IaNode::Kind::LocalJoin:
        ++joins;
        edit([](IaNode& x) { x.join().out_key = KeyFn::projecting({1, 0, 2}, 3).after(x.join().out_key); });
        edit([](IaNode& x) { x.join().kernel.then = ArrayFn::of(ArrayFn::Diagonal{}); });
        edit([](IaNode& x) { x.join().keys_left.push_back(0); });
        break;
      case IaNode::Kind::LocalAgg:
        ++aggs;
        edit([](IaNode& x) { x.agg().kernel.reduce = AggKernel::Fold{einsum::AggOp::Max}; });
        edit([](IaNode& x) { x.agg().group_by.pop_back(); });
        break;
      case IaNode::Kind::LocalFilter:
        ++filters;
        edit([](IaNode& x) { x.filter().predicate = x.filter().predicate.relayout(2, {{1, 0}, {0, 1}}, " swapped"); });
        break;
      case IaNode::Kind::LocalMap:
        ++maps;
        edit([](IaNode& x) { x.map().array_map = ArrayFn::of(ArrayFn::Diagonal{}).after(x.map().array_map); });
        edit([](IaNode& x) { x.map().key_map = KeyFn::projecting({1, 0}, 2).after(x.map().key_map); });
        break;
      default:
        edit([](IaNode& x) { x.inputs.push_back(0); });
        break;
    }
    for (const IaPlan& p : edited) {
      EXPECT_TRUE(p != base) << "p" << i << " edited:\n" << p.parameters();
      EXPECT_NE(p.parameters(), base.parameters()) << "p" << i;
    }
  }
  EXPECT_GT(joins, 0);
  EXPECT_GT(aggs + maps, 0);  // relu is composed into the join or the aggregation, or stays a map
  EXPECT_GT(filters, 0);
}

TEST(PlanEquality, ForcedStrategiesGiveOtherPlans) {
  const std::string square =
      "tensors:\n"
      "  - {name: A, shape: [64, 64], source: \"uniform(-1, 1, 1)\"}\n"
      "  - {name: B, shape: [64, 64], source: \"uniform(-1, 1, 2)\"}\n"
      "graph:\n  - \"C[i,k] = sum_j A[i,j] * B[j,k]\"\n"
      "run:\n  partitioning: {C: {i: 2, j: 2, k: 2}}\n"
      "outputs:\n  - {tensor: C, file: c.h5}\n";
  const IaPlan bmm = planned(square, 4, "bmm"), cmm = planned(square, 4, "cmm");
  EXPECT_TRUE(bmm != cmm);
  EXPECT_NE(bmm.parameters(), cmm.parameters());
  EXPECT_TRUE(bmm == planned(square, 4, "bmm"));
}

}  // namespace
}  // namespace tra::physical
