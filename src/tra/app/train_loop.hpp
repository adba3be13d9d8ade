#pragma once
// A training deck's iterations: the step (forward, backward and update, one
// IA plan) is planned once and run `iterations` times. Before each run the
// batch tensors are pointed at the iteration's batch (model/batch_order) and
// Adam's step scalars are set; after it every loop-carried tensor X (a
// parameter, an optimizer's state) is handed from this run's X.next to the
// next run's Scans of X where they live (exec/loop_carry.hpp): in place when
// the update ends where the read starts, else by one Shuffle or Bcast of the
// tuples that are elsewhere (an all-gather of the whole tensor only where
// the chunk shapes differ). Rank 0 prints the loss and the rate and logs
// them; checkpoints are written every `checkpoint.every` iterations and
// after the last.
//
// Not yet as the issue wants it: the carried tensors' movement is charged
// when labelings are compared (PlannedDeck::carried_floats), not inside the
// IA optimizer's search; each run allocates its results afresh (freed memory
// stays in the process: common/allocation.hpp).
#include <memory>
#include <set>
#include <string>

#include "tra/app/checkpoint.hpp"
#include "tra/app/plan_deck.hpp"
#include "tra/comm/communicator.hpp"
#include "tra/exec/executor.hpp"

namespace tra::app {

struct TrainFiles {
  std::string log;         // the CSV log ("" = none)
  std::string checkpoint;  // ("" = none)
};

// The last iteration's executor (its results are the ones written out);
// `seconds`: all iterations run, the slowest rank's. `resume`: the state to
// start from (done = 0: the deck's sources), dropped after the first run.
std::unique_ptr<exec::Executor> run_iterations(const PlannedDeck& planned, const model::TrainSettings& train, const comm::Communicator& c,
                                               std::set<int> keep, bool analyze, const TrainFiles& files, Checkpoint resume,
                                               double& seconds);

}  // namespace tra::app
