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

// A of 100 x 100 doubles (80 kB) read from a file, on one rank.
physical::IaPlan read_and(const std::string& graph) {
  const std::string deck = "tensors:\n  - {name: A, shape: [100, 100], source: {file: d.h5, dataset: A}}\ngraph:\n" + graph;
  return plan_deck(io::parse_deck(deck, "deck.yaml", ""), 1, {}).optimized.chosen;
}

int scan_of(const physical::IaPlan& ia, const std::string& name) {
  for (size_t i = 0; i < ia.nodes.size(); ++i)
    if (ia.nodes[i].kind() == physical::IaNode::Kind::Scan && ia.nodes[i].scan().source->name == name) return static_cast<int>(i);
  return -1;
}

TEST(KeptInputs, KeepingAddsWhatThePlanDoesNotHoldAtItsPeakAnyway) {
  // B = A + 1 peaks holding A and B (160 kB): A kept beside them adds nothing.
  const physical::IaPlan one = read_and("  - \"B[i,j] = A[i,j] + 1\"\n");
  const std::set<int> a_one{scan_of(one, "A")};
  EXPECT_DOUBLE_EQ(kept_bytes(one, a_one, 1, 0), 80000);
  EXPECT_DOUBLE_EQ(keeping_adds(one, a_one, 1, 0), 0);
  // Then C = B·B: the plan peaks holding B and C, A freed; kept, A is
  // held beside them: 80 kB more.
  const physical::IaPlan two = read_and("  - \"B[i,j] = A[i,j] + 1\"\n  - \"C[i,k] = sum_j B[i,j] * B[j,k]\"\n");
  EXPECT_DOUBLE_EQ(keeping_adds(two, {scan_of(two, "A")}, 1, 0), 80000);
}

}  // namespace
}  // namespace tra::app
