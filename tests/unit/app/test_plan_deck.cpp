// The eindecomp partitioner's check of the baselines' labelings
// (app/plan_deck.hpp): each candidate is optimized on its own here, and the
// chosen one must be the one whose IA plan moves the fewest floats.
#include <gtest/gtest.h>

#include "tra/app/plan_deck.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/physical/compile.hpp"

namespace tra::app {
namespace {

using Partitioner = io::RunOptions::Partitioner;

// §9's square chain (A B) + (C (D E)), 256 x 256 each, as inputs/chain_square.yaml.
std::string square_chain(const std::string& run = "") {
  std::string deck = "tensors:\n";
  for (const char* t : {"A", "B", "C", "D", "E"}) deck += std::string("  - {name: ") + t + ", shape: [256, 256], source: ones}\n";
  deck +=
      "graph:\n"
      "  - \"AB[i,k] = sum_j A[i,j] * B[j,k]\"\n"
      "  - \"DE[l,k] = sum_m D[l,m] * E[m,k]\"\n"
      "  - \"CDE[i,k] = sum_l C[i,l] * DE[l,k]\"\n"
      "  - \"Z[i,k] = AB[i,k] + CDE[i,k]\"\n"
      "outputs:\n  - {tensor: Z, file: z.h5, dataset: /Z}\n" +
      run;
  return deck;
}

// The floats moved by the optimized IA plan of one partitioner's labeling,
// lowered and optimized directly.
Index floats_moved_with(const io::Workflow& wf, int nranks, Partitioner k) {
  const logical::Lowering low = logical::lower(wf, nranks, k);
  physical::IaPlan table1 = physical::compile(low.plan, nranks);
  table1.roots = {table1.tra_to_ia[static_cast<size_t>(low.tensor_node.at("Z"))]};
  return physical::optimize(table1, {}).cost.floats_moved;
}

TEST(PlanDeck, SquareChainOnFourRanksTakesTheLabelingThatMovesLeast) {
  const io::Workflow wf = io::parse_deck(square_chain(), "chain.yaml", "");
  const PlannedDeck p = plan_deck(wf, 4, {});
  ASSERT_EQ(p.candidates.size(), 4u);
  EXPECT_EQ(p.candidates[0].partitioner, "eindecomp");
  Index least = -1;
  for (Partitioner k : {Partitioner::EinDecomp, Partitioner::ModelParallel, Partitioner::DataParallel, Partitioner::Sqrt}) {
    const Index f = floats_moved_with(wf, 4, k);
    if (least < 0 || f < least) least = f;
  }
  EXPECT_EQ(p.optimized.cost.floats_moved, least);
  // EinDecomp's own labeling aggregates D E across ranks once optimized
  // (docs/eindecomp.md); a column split of every statement moves nothing.
  EXPECT_GT(floats_moved_with(wf, 4, Partitioner::EinDecomp), 0);
  EXPECT_EQ(least, 0);
  int chosen = 0;
  for (const auto& c : p.candidates) chosen += c.chosen;
  EXPECT_EQ(chosen, 1);
  EXPECT_FALSE(p.candidates[0].chosen);
  EXPECT_NE(p.lowering.decomposition.partitioner.find("eindecomp, with "), std::string::npos);
  ASSERT_EQ(p.output_nodes.size(), 1u);
  EXPECT_EQ(p.output_nodes[0], p.optimized.chosen.roots[0]);
}

TEST(PlanDeck, TiesKeepEinDecompsLabeling) {
  // On 2 ranks EinDecomp's labeling of the square chain moves nothing either.
  const io::Workflow wf = io::parse_deck(square_chain(), "chain.yaml", "");
  const PlannedDeck p = plan_deck(wf, 2, {});
  ASSERT_FALSE(p.candidates.empty());
  EXPECT_TRUE(p.candidates[0].chosen);
  EXPECT_EQ(p.optimized.cost.floats_moved, 0);
  EXPECT_EQ(p.lowering.decomposition.partitioner, "eindecomp");
}

TEST(PlanDeck, NoCheckWhenDisabledPinnedOrAnotherPartitioner) {
  physical::OptimizerOptions off;
  off.disabled.insert(kBaselineLabelings);
  const PlannedDeck disabled = plan_deck(io::parse_deck(square_chain(), "chain.yaml", ""), 4, off);
  EXPECT_TRUE(disabled.candidates.empty());
  EXPECT_NE(disabled.check_note.find("disabled"), std::string::npos);

  const PlannedDeck sqrt = plan_deck(io::parse_deck(square_chain("run:\n  partitioner: sqrt\n"), "chain.yaml", ""), 4, {});
  EXPECT_TRUE(sqrt.candidates.empty());
  EXPECT_TRUE(sqrt.check_note.empty());

  const PlannedDeck pinned = plan_deck(io::parse_deck(square_chain("run:\n  partitioning:\n"
                                                                   "    AB: {i: 4}\n    DE: {l: 4}\n    CDE: {i: 4}\n    Z: {i: 4}\n"),
                                                      "chain.yaml", ""),
                                       4, {});
  EXPECT_TRUE(pinned.candidates.empty());
  EXPECT_EQ(pinned.lowering.d.at("DE").at("l"), 4);
}

}  // namespace
}  // namespace tra::app
