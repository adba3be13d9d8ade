#pragma once
// A training deck's iterations: the step (forward, backward and update, one
// IA plan) is planned once and run `iterations` times. Before each run the
// batch tensors are pointed at the iteration's batch (model/batch_order) and
// Adam's step scalars are set; the run's Carry operators (the plan's last,
// physical/ops/carry.hpp) hand every loop-carried tensor X (a parameter, an
// optimizer's state) from this run's X.next to where the next run's Scans of
// X read it: in place when the update ends where the read starts, else by
// one Shuffle or Bcast of the tuples that are elsewhere (each chunk to the
// ranks that read part of it where the chunk shapes differ), and the next run
// starts from them. Rank 0 prints the loss and the rate and logs
// them; checkpoints are written every `checkpoint.every` iterations and
// after the last.
//
// Iterations are counted from 1: iteration k is the k-th update, its loss
// the loss before that update, and a checkpoint "after iteration k" holds
// the state k updates made (docs/training.md).
//
// A run never ends "successfully" with non-finite weights: a NaN or an
// infinite loss (checked every iteration), or an update that leaves one in
// a parameter or an optimizer's state (checked at each checkpoint and after
// the last iteration, where they are saved), stops every rank there with a
// UserError (exit 2) naming the iteration and the tensor, before that
// iteration's checkpoint; the earlier checkpoint stays, and the log up to
// the iteration is written.
//
// A run that reads its data more than once (a batch in several epochs, a
// tensor read whole in several iterations) keeps it after its first read
// where it fits (exec/input_cache.hpp).
//
// Not yet as the issue wants it: each run allocates its results afresh (on a host
// freed memory stays in the process, common/allocation.hpp; on a device the
// chunk pool reuses it, core/chunk_pool.hpp).
//
// One executor runs every iteration (exec/executor.hpp): the plan's exchange
// counts are worked out once, when it is bound.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tra/app/checkpoint.hpp"
#include "tra/app/held_out.hpp"
#include "tra/app/plan_deck.hpp"
#include "tra/app/report.hpp"
#include "tra/comm/communicator.hpp"
#include "tra/exec/executor.hpp"

namespace tra::app {

struct TrainFiles {
  std::string log;  // the CSV log ("" = none)
  std::string checkpoint;  // ("" = none)
};

struct TrainingRun {
  std::unique_ptr<exec::Executor> last;  // the run's executor: its last iteration's results are the ones written out
  std::vector<IterationTimes> iterations;  // each iteration run, the slowest rank's times
  double seconds = 0;  // the whole loop, the slowest rank's
};

// `resume`: the state to start from (done = 0: the deck's sources), dropped
// after the first run. `check_files` re-checks, collectively, that every
// file the run writes can still be written; it is called with each progress
// line and before the last iteration (whose results are the outputs), so
// that a folder removed mid-run is found then, not after the whole run.
// `spare_bytes`: what the plan leaves free per rank under the memory bound,
// where the batches are kept after their first read if they all fit.
// `held_out`: where train: accuracy: is measured (null: it is not).
TrainingRun run_iterations(const PlannedDeck& planned, const model::TrainSettings& train, const comm::Communicator& c, std::set<int> keep,
                           bool analyze, const TrainFiles& files, Checkpoint resume, const std::function<void()>& check_files,
                           std::int64_t spare_bytes, HeldOut* held_out = nullptr);

// The Scans whose data the run keeps after their first read
// (exec/input_cache.hpp), none if it keeps nothing: those reading data more
// than once (app/kept_inputs.hpp), when what keeping them adds to every
// rank's estimated peak fits in what the plan leaves free under the memory
// bound and, on a GPU, all they read fits in half of its share of the
// device's free memory. Agreed: every rank reads collectively, so all read
// or all reuse. Collective over `c`.
std::set<int> kept_inputs(const physical::IaPlan& ia, Index batches, Index runs, std::int64_t spare_bytes, const comm::Communicator& c);

// What the next run reads of loop-carried tensor `name` from this run's
// Carry operator `carry_node`: its Scan's tuples in place, or the tensor
// whole where the update's chunks differ from the read's.
void carry_over(const exec::Executor& ex, const physical::IaPlan& ia, const std::string& name, const PlannedDeck::Carried& carried, int carry_node,
                std::map<std::string, std::shared_ptr<const exec::HostTensor>>& whole, std::map<int, std::vector<Tuple>>& in_place);

// Whether train: accuracy: is measured after `iteration` (counted from 1).
bool accuracy_due(const model::TrainSettings& train, Index iteration);
// The log's columns, with accuracy when it is measured.
std::string log_header(const model::TrainSettings& train, const std::string& columns);
// A row of it: `row`, then the accuracy (empty where not measured) when it is measured.
std::vector<std::optional<double>> log_row(const model::TrainSettings& train, std::vector<std::optional<double>> row, std::optional<double> accuracy);

}  // namespace tra::app
