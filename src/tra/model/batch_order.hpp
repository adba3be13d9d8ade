#pragma once
// Which batch a training iteration reads (train: order:). An epoch visits
// every batch once: in order (sequential), or in a permutation drawn afresh
// for every epoch from the seed (shuffled). The permutation is a
// Fisher–Yates shuffle driven by SplitMix64, written out in
// docs/training.md so that a reference (tests/regression/references.py) or
// a user can reproduce the order without TRA.
#include <cstdint>
#include <vector>

#include "tra/model/workflow.hpp"

namespace tra::model {

// Batches per epoch: the one count every batch tensor of wf shares (1 when
// the deck has none: the whole data every iteration).
Index batches_per_epoch(const Workflow& wf);

// The order of the batches in `epoch` (0-based).
std::vector<Index> epoch_order(const TrainSettings& train, Index batches, Index epoch);

// The batch of `iteration` (0-based, counted over all epochs).
Index batch_at(const TrainSettings& train, Index batches, Index iteration);

}  // namespace tra::model
