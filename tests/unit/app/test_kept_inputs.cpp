// Which data a training run keeps after its first read (app/kept_inputs.hpp):
// a tensor read whole from a second iteration on, a batch tensor only when
// its batches recur, never a parameter or a generated tensor; and the bytes
// that costs, each batch counted once.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tra/app/kept_inputs.hpp"
#include "tra/app/plan_deck.hpp"
#include "tra/io/deck/deck_reader.hpp"

namespace tra::app {
namespace {

const char* const kDeck =
    "tensors:\n"
    "  - {name: X, shape: [12, 3], source: {file: d.h5, dataset: X}, batch: {dim: 0, size: 4}}\n"
    "  - {name: C, shape: [3], source: {file: d.h5, dataset: C}}\n"
    "  - {name: G, shape: [3], source: ones}\n"
    "  - {name: W, shape: [3], source: {file: d.h5, dataset: W0}, param: true}\n"
    "graph:\n"
    "  - \"V[f] = C[f] * G[f]\"\n"
    "  - \"U[f] = W[f] * V[f]\"\n"
    "  - \"Z[b] = sum_f X[b,f] * U[f]\"\n"
    "  - \"L = sum_b sq(Z[b])\"\n"
    "train: {loss: L, optimizer: {kind: sgd, lr: 0.1}, iterations: 8}\n";

// The tensors whose Scans are in `scans`.
std::set<std::string> tensors(const physical::IaPlan& ia, const std::set<int>& scans) {
  std::set<std::string> out;
  for (int s : scans) out.insert(ia.node(s).scan().source->name);
  return out;
}

TEST(KeptInputs, DataReadMoreThanOnceOnly) {
  const PlannedDeck p = plan_deck(io::parse_deck(kDeck, "deck.yaml", ""), 1, {});
  const physical::IaPlan& ia = p.optimized.chosen;
  constexpr Index kBatches = 3;
  // One iteration reads everything once: nothing to keep.
  EXPECT_TRUE(reread_data_scans(ia, kBatches, 1).empty());
  // Within the first epoch C recurs, X's batches do not.
  EXPECT_EQ(tensors(ia, reread_data_scans(ia, kBatches, 3)), (std::set<std::string>{"C"}));
  // From the second epoch on both; never W (trained) or G (generated).
  const std::set<int> both = reread_data_scans(ia, kBatches, 4);
  EXPECT_EQ(tensors(ia, both), (std::set<std::string>{"C", "X"}));
  // Per Scan (X is read on two chunk grids, for Z and for W's gradient):
  // every batch of X (4 x 3 doubles each), C once.
  double want = 0;
  for (int s : both) want += (ia.node(s).scan().source->name == "X" ? kBatches * 4 * 3 : 3) * 8.0;
  EXPECT_GT(want, (kBatches * 4 * 3 + 3) * 8.0 - 1) << "each kept Scan counted";
  EXPECT_DOUBLE_EQ(kept_bytes(ia, both, kBatches, 0), want);
}

}  // namespace
}  // namespace tra::app
