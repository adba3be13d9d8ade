// Type, frontier and distribution inference (TRA paper §5.3): frontiers of
// filters and key maps by brute force over the exact key sets, and the
// validity check that guards the optimizer's rewrites.
#include <gtest/gtest.h>

#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"
#include "tra/physical/compile.hpp"
#include "tra/physical/infer.hpp"
#include "tra/physical/plan_edit.hpp"

using tra::Shape;
using tra::physical::IaNode;
using tra::physical::IaPlan;

namespace {

const std::string kDeck =
    "tensors:\n"
    "  - {name: X, shape: [8, 6], chunk: [2, 2], source: \"uniform(-1, 1, 1)\"}\n"
    "graph:\n"
    "  - {op: filter, input: X, output: F, where: \"k0 < 3 && k1 % 2 == 0\"}\n"
    "  - {op: rekey, input: F, output: G, key: \"[k1 / 2, 2 * k0]\"}\n";

}  // namespace

TEST(Infer, FrontiersOfFiltersAndKeyMapsByBruteForce) {
  const auto wf = tra::io::parse_deck(kDeck, "deck.yaml", "");
  const auto low = tra::logical::lower(wf, 2);
  const IaPlan p = tra::physical::compile(low.plan, 2);
  const IaNode& f = p.node(p.tra_to_ia[static_cast<size_t>(low.tensor_node.at("F"))]);
  // X's frontier is [4, 3]; k0 < 3 keeps rows 0..2, k1 even keeps columns 0 and 2.
  EXPECT_EQ(f.type.frontier, (Shape{3, 3}));
  EXPECT_EQ(f.dist.tuples(), 3 * 2);
  const IaNode& g = p.node(p.tra_to_ia[static_cast<size_t>(low.tensor_node.at("G"))]);
  // [k1 / 2, 2 * k0] over those keys: k1 / 2 ∈ {0, 1}, 2 * k0 ∈ {0, 2, 4}.
  EXPECT_EQ(g.type.frontier, (Shape{2, 5}));
  EXPECT_EQ(g.type.chunk_shape, (Shape{2, 2}));
  // The TRA plan computed the same frontiers its own way.
  EXPECT_EQ(g.type.frontier, low.plan.nodes[static_cast<size_t>(low.tensor_node.at("G"))].type.frontier);
}

TEST(Infer, AJoinOfRelationsThatDoNotMeetIsInvalid) {
  const std::string deck =
      "tensors:\n"
      "  - {name: A, shape: [4, 4], chunk: [2, 2], source: \"uniform(-1, 1, 1)\"}\n"
      "  - {name: B, shape: [4, 4], chunk: [2, 2], source: \"uniform(-1, 1, 2)\"}\n"
      "graph:\n"
      "  - \"C[i,j] = A[i,j] + B[i,j]\"\n"
      "run:\n"
      "  partitioning:\n"
      "    C: {i: 2, j: 2}\n";
  const auto wf = tra::io::parse_deck(deck, "deck.yaml", "");
  const auto low = tra::logical::lower(wf, 2);
  IaPlan p = tra::physical::compile(low.plan, 2);
  ASSERT_TRUE(tra::physical::invalid_reason(p).empty());
  // Drop Table 1's broadcast and read B on Part<1>: block (i, j) of A is on
  // Part<0,1>, a 2 x 1 grid of the 2 sites (site i mod 2), of B on j mod 2,
  // so (0, 1) and (1, 0) never meet.
  int join = -1;
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].kind() == IaNode::Kind::LocalJoin) join = static_cast<int>(i);
  ASSERT_GE(join, 0);
  const int bcast = p.node(join).inputs[0];
  const int a = p.node(bcast).inputs[0];
  const int b = p.node(join).inputs[1];
  p.node(join).inputs[0] = a;
  p.node(b).placement() = tra::Placement{tra::Placement::Kind::Part, {1}, {}};
  tra::physical::normalize(p);
  tra::physical::infer(p);
  EXPECT_NE(tra::physical::invalid_reason(p).find("not co-located"), std::string::npos) << tra::physical::invalid_reason(p);
  // Read both on Part<0,1>: every pair meets once.
  for (auto& n : p.nodes)
    if (n.kind() == IaNode::Kind::Scan) n.placement() = tra::Placement{tra::Placement::Kind::Part, {0, 1}, {}};
  tra::physical::infer(p);
  EXPECT_TRUE(tra::physical::invalid_reason(p).empty()) << tra::physical::invalid_reason(p);
}

TEST(Infer, PartialAggregatesCombineOnlyUnderTheirOwnSum) {
  const std::string deck =
      "tensors:\n"
      "  - {name: X, shape: [4, 4], source: \"uniform(-1, 1, 1)\"}\n"
      "graph:\n"
      "  - \"S[i] = sum_j X[i,j]\"\n"
      "run:\n"
      "  partitioning:\n"
      "    S: {i: 2, j: 2}\n";
  const auto wf = tra::io::parse_deck(deck, "deck.yaml", "");
  const auto low = tra::logical::lower(wf, 2);
  IaPlan p = tra::physical::compile(low.plan, 2);
  const int agg = p.tra_to_ia[static_cast<size_t>(low.tensor_node.at("S"))];
  ASSERT_EQ(p.node(agg).kind(), IaNode::Kind::LocalAgg);
  ASSERT_EQ(p.node(p.node(agg).inputs[0]).kind(), IaNode::Kind::Shuffle);
  // Aggregate where the blocks are (Part<1>: the two j-blocks of a row on
  // two sites): S is left as partial sums, then shuffled and combined by a
  // second aggregation, the second phase of R2-5.
  p.node(agg).inputs = p.node(p.node(agg).inputs[0]).inputs;
  for (auto& n : p.nodes)
    if (n.kind() == IaNode::Kind::Scan) n.placement() = tra::Placement{tra::Placement::Kind::Part, {1}, {}};
  IaNode second = p.node(agg);
  second.inputs = {tra::physical::add_node(p, tra::physical::make_shuffle(agg, {0}))};
  second.agg().group_by = {0};
  const int fin = tra::physical::add_node(p, second);
  p.roots = {fin};
  tra::physical::normalize(p);
  tra::physical::infer(p);
  EXPECT_TRUE(tra::physical::invalid_reason(p).empty()) << tra::physical::invalid_reason(p);
  // The maximum of partial sums is not the maximum of the sums.
  for (auto& n : p.nodes)
    if (n.kind() == IaNode::Kind::LocalAgg && n.inputs.size() == 1 && p.node(n.inputs[0]).kind() == IaNode::Kind::Shuffle)
      n.agg().kernel.reduce = tra::physical::AggKernel::Fold{tra::einsum::AggOp::Max};
  tra::physical::infer(p);
  EXPECT_NE(tra::physical::invalid_reason(p).find("another ⊕"), std::string::npos) << tra::physical::invalid_reason(p);
}
