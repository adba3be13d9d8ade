#pragma once
// Held-out accuracy (train: accuracy: {predictions: S, targets: T, held_out:
// N, every: K}; docs/training.md): how often the current parameters
// classify rows they were not trained on right, so that a run's log shows
// when it reaches a target accuracy (time-to-accuracy, thesis Table 2.1).
//
// The deck's forward graph over the N held-out rows (the last N of every
// batch tensor's data, which training never reads) is planned once for one
// rank; rank 0 runs it with the parameters it is given and compares each
// row's largest prediction with the target's largest entry (the first
// where several are equal, as torch.argmax). Every rank gets the fraction.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tra/app/plan_deck.hpp"
#include "tra/comm/communicator.hpp"
#include "tra/exec/executor.hpp"
#include "tra/exec/host_tensor.hpp"

namespace tra::app {

class HeldOut {
 public:
  // Plans on every rank: predictions that are not a statement's result, or
  // whose shape is not the targets', are a UserError at `predictions:`.
  HeldOut(const model::Workflow& deck, const physical::OptimizerOptions& options);
  // Collective. `params`: every parameter of the deck, whole (read on rank 0 only).
  double accuracy(const std::map<std::string, exec::HostTensor>& params, const comm::Communicator& c);

 private:
  comm::Communicator self_;
  PlannedDeck plan_;
  std::string targets_;
  std::vector<Index> target_class_;  // each held-out row's (rank 0's)
  std::unique_ptr<exec::Executor> ex_;  // rank 0's
};

}  // namespace tra::app
