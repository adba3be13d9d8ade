#pragma once
// A training deck's iterations: the step (forward, backward and update, one
// IA plan) is planned once and run `iterations` times. After each run every
// loop-carried tensor X (a parameter, an optimizer's state) is read back
// from X.next, gathered on every rank, and the next run's Scans of X cut
// their chunks from it; the loss is printed by rank 0 and logged.
//
// Not yet as the issue wants it: the carried tensors are gathered whole on
// every rank (an all-gather per tensor and iteration, not charged by the
// cost model), and each run allocates its results afresh.
#include <memory>
#include <set>
#include <string>

#include "tra/app/plan_deck.hpp"
#include "tra/comm/communicator.hpp"
#include "tra/exec/executor.hpp"

namespace tra::app {

// The last iteration's executor (its results are the ones written out);
// `seconds`: all iterations, the slowest rank's. `log_path`: the CSV log
// ("" = none), written under a temporary name and renamed into place.
std::unique_ptr<exec::Executor> run_iterations(const PlannedDeck& planned, const model::TrainSettings& train, const comm::Communicator& c,
                                               std::set<int> keep, bool analyze, const std::string& log_path, double& seconds);

}  // namespace tra::app
