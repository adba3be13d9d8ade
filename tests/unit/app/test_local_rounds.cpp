// A training run by rounds, planned (app/local_rounds.hpp): each site's
// subnetwork shapes and the floats a round assembles, against the thesis'
// count (§2.1.5) worked out by hand; the runs themselves are checked against
// PyTorch by tests/regression/check_ist.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "tra/app/local_rounds.hpp"
#include "tra/io/deck/deck_reader.hpp"

namespace tra::app {
namespace {

// 10 → 8 → 6 → 3, a batch of 5 rows; `method`: the train: keys.
model::Workflow deck(const std::string& method) {
  return io::parse_deck(
      "tensors:\n"
      "  - {name: X, shape: [20, 10], source: {file: d.h5, dataset: X}, batch: {dim: 0, size: 5}}\n"
      "  - {name: T, shape: [20, 3], source: {file: d.h5, dataset: T}, batch: {dim: 0, size: 5}}\n"
      "  - {name: W1, shape: [10, 8], source: \"uniform(-1, 1, 1)\", param: true}\n"
      "  - {name: b1, shape: [8], source: zeros, param: true}\n"
      "  - {name: W2, shape: [8, 6], source: \"uniform(-1, 1, 2)\", param: true}\n"
      "  - {name: W3, shape: [6, 3], source: \"uniform(-1, 1, 3)\", param: true}\n"
      "  - {name: b3, shape: [3], source: zeros, param: true}\n"
      "graph:\n"
      "  - \"Z1[b,h] = sum_f X[b,f] * W1[f,h]\"\n"
      "  - \"H1[b,h] = relu(Z1[b,h])\"\n"
      "  - \"A1[b,h] = H1[b,h] + b1[h]\"\n"
      "  - \"Z2[b,g] = sum_h A1[b,h] * W2[h,g]\"\n"
      "  - \"H2[b,g] = tanh(Z2[b,g])\"\n"
      "  - \"Z3[b,l] = sum_g H2[b,g] * W3[g,l]\"\n"
      "  - \"S[b,l] = Z3[b,l] + b3[l]\"\n"
      "  - \"L = sum_{b,l} sq(S[b,l] - T[b,l])\"\n"
      "train: {loss: L, optimizer: {kind: sgd, lr: 0.1}, iterations: 4, " +
          method + "}\n",
      "deck.yaml", "");
}

TEST(LocalRounds, IstCutsEveryHiddenLayerAndAssemblesTheThesisCountEachRound) {
  const model::Workflow wf = deck("method: ist, local_steps: 2, seed: 5");
  const PlannedDeck whole = plan_deck(wf, 2, {});
  const RoundsPlan p = plan_rounds(wf, whole, {}, 2);
  ASSERT_EQ(p.layers.size(), 2u);
  EXPECT_EQ(p.carried.at("W1").site, (Shape{10, 4}));
  EXPECT_EQ(p.carried.at("b1").site, (Shape{4}));
  EXPECT_EQ(p.carried.at("W2").site, (Shape{4, 3}));
  EXPECT_EQ(p.carried.at("W3").site, (Shape{3, 3}));
  EXPECT_FALSE(p.carried.at("b3").cut());
  // Over the 2 sites: N0·N1 + N2·N3 (the first and last matrices, each
  // site a half), N1·N2 / n (each site a quarter of the middle one), b1.
  EXPECT_EQ(p.assembled, 10 * 8 + 6 * 3 + 8 * 6 / 2 + 8);
  EXPECT_EQ(p.averaged, 3);
  // The site's step is the deck's, narrower, for one rank.
  EXPECT_EQ(p.site.workflow.find_tensor("W2")->shape, (Shape{4, 3}));
  EXPECT_EQ(p.site.optimized.chosen.nodes.empty(), false);
}

// What a rank holds beside the site's step (RoundsPlan::copy_bytes, which
// run_deck checks against memory_per_rank), worked out from the tensors'
// sizes: the network W = W1 80 + b1 8 + W2 48 + W3 18 + b3 3 = 157 entries,
// its cut ones C = 154 (all but b3), a site's S = 40 + 4 + 12 + 9 + 3 = 68,
// the largest averaged tensor U = b3's 3; values 8 bytes, offsets 8, sources 2.
TEST(LocalRounds, ARankHoldsItsCopyOfTheNetworkAndTheLargestOfWhatMovesIt) {
  const model::Workflow wf = deck("method: ist, local_steps: 2, seed: 5");
  const RoundsPlan p = plan_rounds(wf, plan_deck(wf, 2, {}), {}, 2);
  const std::int64_t kept = 8 * 157 + 2 * 154 + 8 * 68;  // the copy, each cut entry's source, the site's offsets
  const std::int64_t start = 2 * 8 * 154 + 2 * 8 * 68 + (8 + 2) * 68;  // a round's assembly: sent, received, the site's tensors
  const std::int64_t end = 8 * 68 + 8 * 2 * 3;  // a round's end: the trained tensors, every rank's averaged one
  const std::int64_t gather = 3 * 8 * 157;  // the shared buffer and a held-out evaluation's two copies
  EXPECT_EQ(p.copy_bytes(), kept + std::max({start, end, gather}));
  EXPECT_EQ(p.copy_bytes(), 6340);
}

TEST(LocalRounds, LocalSgdTrainsTheWholeNetworkAtEverySiteAndAveragesIt) {
  const model::Workflow wf = deck("method: local_sgd, local_steps: 2");
  const RoundsPlan p = plan_rounds(wf, plan_deck(wf, 4, {}), {}, 4);
  EXPECT_TRUE(p.layers.empty());
  EXPECT_EQ(p.assembled, 0);
  EXPECT_EQ(p.averaged, 10 * 8 + 8 + 8 * 6 + 6 * 3 + 3);
  EXPECT_EQ(p.carried.at("W2").site, (Shape{8, 6}));
}

TEST(LocalRounds, ALayerThatDoesNotSplitEvenlyIsRefusedAtItsParameter) {
  const model::Workflow wf = deck("method: ist, local_steps: 2");
  try {
    plan_rounds(wf, plan_deck(wf, 3, {}), {}, 3);
    FAIL() << "8 neurons were dealt to 3 sites";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("deck.yaml:4:5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("8 hidden neurons of W1 dim 1 equally to the 3 ranks"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tra::app
