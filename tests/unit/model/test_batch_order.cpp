// Which batch a training iteration reads (model/batch_order.hpp). The exact
// shuffled order is checked against an independent Python implementation
// of docs/training.md's algorithm through inputs/logistic_adam.yaml
// (tests/regression/references.py); here, the properties a user relies on.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "tra/io/deck/deck_reader.hpp"
#include "tra/model/batch_order.hpp"

namespace tra::model {
namespace {

TrainSettings shuffled(std::uint64_t seed) {
  TrainSettings t;
  t.order = TrainSettings::Order::Shuffled;
  t.seed = seed;
  return t;
}

TEST(BatchOrder, SequentialVisitsBatchesInOrderEveryEpoch) {
  const TrainSettings t;
  for (Index it = 0; it < 12; ++it) EXPECT_EQ(batch_at(t, 5, it), it % 5);
}

TEST(BatchOrder, ShuffledEpochsArePermutationsDrawnAfreshAndReproducibly) {
  const Index batches = 10;
  std::vector<Index> all(static_cast<size_t>(batches));
  std::iota(all.begin(), all.end(), Index{0});
  std::set<std::vector<Index>> distinct;
  for (Index epoch = 0; epoch < 4; ++epoch) {
    std::vector<Index> order = epoch_order(shuffled(7), batches, epoch);
    EXPECT_EQ(order, epoch_order(shuffled(7), batches, epoch));  // reproducible
    distinct.insert(order);
    for (Index i = 0; i < batches; ++i) EXPECT_EQ(batch_at(shuffled(7), batches, epoch * batches + i), order[static_cast<size_t>(i)]);
    std::sort(order.begin(), order.end());
    EXPECT_EQ(order, all);  // every batch once
  }
  EXPECT_EQ(distinct.size(), 4u);
  EXPECT_NE(epoch_order(shuffled(7), batches, 0), epoch_order(shuffled(8), batches, 0));
}

TEST(BatchOrder, BatchTensorsShowTheGraphOneBatch) {
  const Workflow wf = io::parse_deck(
      "tensors:\n"
      "  - {name: X, shape: [12, 3], source: {file: d.h5, dataset: X}, batch: {dim: 0, size: 4}}\n"
      "  - {name: W, shape: [3], source: ones, param: true}\n"
      "graph:\n"
      "  - \"Z[b] = sum_f X[b,f] * W[f]\"\n"
      "  - \"L = sum_b sq(Z[b])\"\n"
      "train: {loss: L, optimizer: {kind: sgd, lr: 0.1}, epochs: 2}\n",
      "deck.yaml", "");
  const TensorDecl& x = *wf.find_tensor("X");
  EXPECT_EQ(x.shape, (Shape{4, 3}));
  EXPECT_EQ(x.source_shape(), (Shape{12, 3}));
  EXPECT_EQ(batches_per_epoch(wf), 3);
  EXPECT_EQ(wf.train->iterations, 6);
}

}  // namespace
}  // namespace tra::model
