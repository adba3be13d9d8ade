// The eindecomp partitioner's check of the baselines' labelings
// (app/plan_deck.hpp) on §9's square chain, with floats counted by hand or
// taken from the s = 2048 run of perf/eindecomp (every count scales with s²).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "tra/app/plan_deck.hpp"
#include "tra/io/deck/deck_reader.hpp"

namespace tra::app {
namespace {

using Partitioner = model::RunOptions::Partitioner;

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

const LabelingCandidate& named(const PlannedDeck& p, const std::string& partitioner) {
  for (const auto& c : p.candidates)
    if (c.partitioner == partitioner) return c;
  throw std::runtime_error("no candidate " + partitioner);
}

constexpr Index kMatrix = 256 * 256;

TEST(PlanDeck, SquareChainOnFourRanksTakesTheLabelingThatMovesLeast) {
  const model::Workflow wf = io::parse_deck(square_chain(), "chain.yaml", "");
  const PlannedDeck p = plan_deck(wf, 4, {});
  ASSERT_EQ(p.candidates.size(), 4u);
  EXPECT_EQ(p.candidates[0].partitioner, "eindecomp");
  // Model-parallel splits every product by columns: A, C and D are read whole
  // on all 4 ranks (3 extra copies each) and nothing moves.
  const LabelingCandidate& mp = named(p, "model-parallel");
  EXPECT_EQ(mp.cost.floats_moved, 0);
  EXPECT_EQ(mp.replicated_reads, 3 * 3 * kMatrix);
  // SQRT cuts every label 2 ways: 8 kernel calls per product over 4 ranks,
  // one block of the left operand on each. Each block of the right operand
  // is wanted by the two calls that share it, on two ranks, at most one of
  // them its own: it moves once (kMatrix per product); the two partial sums
  // of each output block come from two ranks and meet on one (kMatrix). The
  // sum Z is co-located: 6 · kMatrix in all.
  const LabelingCandidate& sqrt = named(p, "sqrt");
  EXPECT_EQ(sqrt.cost.floats_moved, 6 * kMatrix);
  EXPECT_EQ(sqrt.replicated_reads, 0);
  // EinDecomp's own labeling (4 kernel calls) moves as much once its inputs
  // are read on the faces of the grids that replicate them, but they are 2
  // chunks each, read and sent by 2 of the 4 ranks: SQRT's is estimated faster.
  EXPECT_EQ(p.candidates[0].floats(), 6 * kMatrix);
  EXPECT_GT(p.candidates[0].cost.seconds, 1.01 * sqrt.cost.seconds);
  EXPECT_TRUE(sqrt.chosen);
  int chosen = 0;
  for (const auto& c : p.candidates) chosen += c.chosen;
  EXPECT_EQ(chosen, 1);
  EXPECT_EQ(p.optimized.cost.floats_moved, sqrt.cost.floats_moved);
  EXPECT_EQ(p.lowering.decomposition.partitioner.rfind("eindecomp, with sqrt's d's", 0), 0u);
  EXPECT_EQ(p.lowering.d.at("DE").at("m"), 2);  // SQRT: every label 2 ways
  ASSERT_EQ(p.output_nodes.size(), 1u);
  EXPECT_EQ(p.output_nodes[0], p.optimized.chosen.roots[0]);
}

TEST(PlanDeck, SquareChainOnTwoRanksTakesTheLowestEstimate) {
  // On 2 ranks EinDecomp's labeling of the square chain reads A, C and D on
  // both ranks and moves nothing, SQRT's moves as many floats as those extra
  // reads: the time estimate decides (SQRT's reads less on the busiest rank).
  const model::Workflow wf = io::parse_deck(square_chain(), "chain.yaml", "");
  const PlannedDeck p = plan_deck(wf, 2, {});
  ASSERT_FALSE(p.candidates.empty());
  EXPECT_EQ(p.candidates[0].floats(), 3 * kMatrix);
  EXPECT_EQ(p.candidates[0].cost.floats_moved, 0);
  EXPECT_EQ(named(p, "sqrt").floats(), 3 * kMatrix);
  int chosen = 0;
  for (const auto& c : p.candidates) {
    chosen += c.chosen;
    if (c.same_as.empty()) EXPECT_LE(p.optimized.cost.seconds, c.cost.seconds) << c.partitioner;
  }
  EXPECT_EQ(chosen, 1);
  // Model-parallel's d's are EinDecomp's here (every product split by
  // columns): recognised before optimizing, not counted twice.
  EXPECT_EQ(named(p, "model-parallel").same_as, "eindecomp");
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

namespace tra::app {
namespace {

TEST(PlanDeck, TimeAndMemoryDecideBetweenLabelings) {
  // a is estimated faster (a training step's estimate holds its Carry
  // operators: an iteration's). Under a memory bound only b fits, and a
  // candidate over it loses whatever its time.
  LabelingCandidate a, b;
  a.cost.seconds = 1.0;
  b.cost.seconds = 1.2;
  EXPECT_TRUE(preferred(a, b));
  a.cost.seconds = 1.5;
  EXPECT_TRUE(preferred(b, a));
  a.cost.seconds = 1.0;
  a.peak_bytes = 2000;
  b.peak_bytes = 1000;
  EXPECT_TRUE(preferred(b, a, 1500));
  EXPECT_TRUE(preferred(b, a, 100));  // neither fits: the one that needs less
}

TEST(PlanDeck, ATrainingStepCarriesItsTensorsInThePlan) {
  // logistic regression on 2 ranks, data-parallel: the weight vector (32
  // floats) and Adam's two states are read whole on every rank and updated
  // in halves, so each half travels to the other rank between iterations:
  // 3 x 32 = 96 floats (the run measures the same;
  // tests/regression/check_decks.py compares them). W is read as one chunk
  // of 32: its Carry cuts the halves to it. (Without the phase that puts
  // the whole step on every rank, which for a step this small is cheaper
  // still and carries nothing: PlanDeck.ATinyStepRunsWholeOnEveryRank.)
  model::Workflow wf = io::read_deck(std::string(TRA_INPUTS_DIR) + "/logistic_adam.yaml");
  wf.run.partitioner = model::RunOptions::Partitioner::DataParallel;
  physical::OptimizerOptions split;
  split.disabled.insert("everywhere");
  const PlannedDeck p = plan_deck(wf, 2, split);
  EXPECT_EQ(p.carried_floats, 96);
  EXPECT_EQ(chosen_candidate(p).carried_floats, 96);
  // One Carry per Scan of W.exp_avg and W.exp_avg_sq and one for W, each a
  // root, from its X.next; their floats are the plan's, and so is their time.
  const physical::IaPlan& ia = p.optimized.chosen;
  Index floats = 0;
  int carries = 0;
  for (const auto& [x, c] : p.carried) {
    for (int id : c.carries) {
      const physical::IaNode& n = ia.node(id);
      ASSERT_EQ(n.kind(), physical::IaKind::Carry);
      EXPECT_EQ(n.inputs, std::vector<int>{c.next});
      EXPECT_EQ(n.carry().tensor, x);
      EXPECT_EQ(n.carry().regrid, x == "W") << x;
      EXPECT_NE(std::find(ia.roots.begin(), ia.roots.end(), id), ia.roots.end());
      floats += n.predicted_floats;
      ++carries;
    }
  }
  EXPECT_EQ(carries, 3);
  EXPECT_EQ(floats, 96);
  EXPECT_GE(p.optimized.cost.floats_moved, 96);
  EXPECT_NE(ia.str().find("Carry(W to p"), std::string::npos) << ia.str();
}

// The search weighs the carries like any other operator: on 2 ranks it reads
// W on every rank and carries the updated halves to every rank (32 floats,
// one collective), rather than read W in halves, broadcast it for the forward
// pass and carry the halves back where they were (as many floats, and one
// collective more: a carry between partitioned relations is a shuffle even
// when it moves nothing).
TEST(PlanDeck, TheSearchPlacesAnUpdateWhereTheNextIterationReadsIt) {
  physical::OptimizerOptions split;
  split.disabled.insert("everywhere");
  const PlannedDeck p = plan_deck(io::read_deck(std::string(TRA_INPUTS_DIR) + "/logistic_adam.yaml"), 2, split);
  EXPECT_EQ(p.carried_floats, 32);
  ASSERT_EQ(p.carried.count("W"), 1u);
  const physical::IaPlan& ia = p.optimized.chosen;
  ASSERT_EQ(p.carried.at("W").scans.size(), 1u);
  ASSERT_EQ(p.carried.at("W").carries.size(), 1u);
  EXPECT_TRUE(ia.node(p.carried.at("W").scans[0]).dist.everywhere) << ia.str();
  EXPECT_EQ(ia.node(p.carried.at("W").carries[0]).predicted_floats, 32) << ia.str();
  for (const auto& n : ia.nodes) {
    if (n.kind() != physical::IaKind::Bcast) continue;
    const physical::IaNode& in = ia.node(n.inputs[0]);
    EXPECT_FALSE(in.kind() == physical::IaKind::Scan && in.scan().source && in.scan().source->name == "W") << "W broadcast after all:\n" << ia.str();
  }
}

// A step of microseconds is cheapest computed whole on every rank: every
// input read everywhere, nothing broadcast or shuffled, and the updated
// tensors already where the next iteration reads them (the optimizer's
// "everywhere" phase). Cheaper by the estimate than the best split plan; and
// where the memory per rank cannot hold a whole copy, a split plan it is.
TEST(PlanDeck, ATinyStepRunsWholeOnEveryRank) {
  const model::Workflow wf = io::read_deck(std::string(TRA_INPUTS_DIR) + "/logistic_adam.yaml");
  const PlannedDeck whole = plan_deck(wf, 2, {});
  const physical::IaPlan& ia = whole.optimized.chosen;
  for (const auto& n : ia.nodes) {
    EXPECT_NE(n.kind(), physical::IaKind::Bcast) << ia.str();
    EXPECT_NE(n.kind(), physical::IaKind::Shuffle) << ia.str();
    if (n.kind() == physical::IaKind::Scan) EXPECT_TRUE(n.dist.everywhere) << ia.str();
  }
  EXPECT_EQ(whole.optimized.cost.floats_moved, 0);
  EXPECT_EQ(whole.carried_floats, 0);
  physical::OptimizerOptions split;
  split.disabled.insert("everywhere");
  const PlannedDeck parted = plan_deck(wf, 2, split);
  EXPECT_GT(parted.optimized.cost.floats_moved, 0);
  EXPECT_LT(whole.optimized.cost.seconds, parted.optimized.cost.seconds);

  physical::OptimizerOptions tight;
  tight.memory_per_rank = chosen_candidate(whole).peak_bytes - 1;
  ASSERT_LT(chosen_candidate(parted).peak_bytes, tight.memory_per_rank);
  const PlannedDeck fits = plan_deck(wf, 2, tight);
  EXPECT_GT(fits.optimized.cost.floats_moved, 0);
  EXPECT_LE(chosen_candidate(fits).peak_bytes, tight.memory_per_rank);
}

// A sparse relation cut into blocks by a labeling is planned both ways
// (physical/compile.hpp's SparseBlocks): read whole on every rank, or its
// blocks spread over the ranks with the dense operand of each product
// broadcast. inputs/gcn.yaml on 2 ranks: the spread plans need less memory
// per rank (each rank holds its blocks of Â, not all of them); under a bound
// only a spread plan meets, a spread plan is chosen, and each rank reads
// only its blocks of Â.
TEST(PlanDeck, ASparseRelationIsSpreadOverTheRanksWhenTheMemoryPerRankSaysSo) {
  const model::Workflow wf = io::read_deck(std::string(TRA_INPUTS_DIR) + "/gcn.yaml");
  const PlannedDeck free = plan_deck(wf, 2, {});
  std::int64_t least_everywhere = std::numeric_limits<std::int64_t>::max(), least_spread = least_everywhere;
  for (const auto& c : free.candidates) {
    if (!c.same_as.empty()) continue;
    const bool spread = c.partitioner.size() > 7 && c.partitioner.compare(c.partitioner.size() - 7, 7, "+spread") == 0;
    (spread ? least_spread : least_everywhere) = std::min(spread ? least_spread : least_everywhere, c.peak_bytes);
  }
  ASSERT_LT(least_spread, least_everywhere);
  auto reads_of_a = [](const PlannedDeck& p) {
    std::vector<const physical::IaNode*> scans;
    for (const auto& n : p.optimized.chosen.nodes)
      if (n.kind() == physical::IaKind::Scan && n.scan().source && n.scan().source->name == "A") scans.push_back(&n);
    return scans;
  };
  physical::OptimizerOptions bound;
  bound.memory_per_rank = least_spread;
  const PlannedDeck fits = plan_deck(wf, 2, bound);
  EXPECT_LE(fits.memory.peak_bytes, bound.memory_per_rank);
  EXPECT_NE(fits.lowering.decomposition.partitioner.find("sparse blocks spread"), std::string::npos) << fits.lowering.decomposition.partitioner;
  ASSERT_FALSE(reads_of_a(fits).empty());
  for (const physical::IaNode* scan : reads_of_a(fits)) {
    EXPECT_FALSE(scan->dist.everywhere);
    EXPECT_GT(scan->dist.tuples(), 1);
    std::vector<Index> per_rank(2, 0);
    for (const auto& [key, site] : scan->dist.at) ++per_rank.at(static_cast<size_t>(site));
    EXPECT_LT(*std::max_element(per_rank.begin(), per_rank.end()), scan->dist.tuples());
  }
}

}  // namespace
}  // namespace tra::app
