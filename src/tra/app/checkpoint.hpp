#pragma once
// Training checkpoints (train: checkpoint: {file, every}; tra-run --resume):
// one HDF5 file holding every loop-carried tensor (the parameters and the
// optimizer's state, dataset /X for tensor X), the number of iterations done,
// the training setup (optimizer, batch order, batches per epoch) and the
// element type (run: dtype) that a resume must match, and what the bit-for-bit promise of a resume depends
// on (the rank count and the IA plan). Written like every output: under a
// temporary name, renamed into place.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tra/app/plan_deck.hpp"
#include "tra/comm/communicator.hpp"
#include "tra/common/dtype.hpp"
#include "tra/exec/executor.hpp"
#include "tra/exec/host_tensor.hpp"
#include "tra/model/workflow.hpp"

namespace tra::app {

// One part of what a resume must match, with where the deck says it.
struct SetupPart {
  std::string text;  // "sgd lr 0.3", "order sequential", "4 batch(es) per epoch"
  SourceLoc where;
};

// What a checkpoint records about the run that wrote it.
struct CheckpointRecord {
  std::vector<SetupPart> setup;  // must match to resume
  int ranks = 1;  // a resume is bit for bit on the same ranks ...
  std::string plan;  // ... and the same IA plan (a digest of IaPlan::parameters())
  std::string partitioner;  // the plan's partitioner, for the message when plans differ
  DType dtype = DType::Float64;  // the values' type: a resume must compute in it too
};

CheckpointRecord checkpoint_record(const PlannedDeck& planned, const model::TrainSettings& train, Index batches_per_epoch, int ranks);

// Writes the results of `next_nodes` (carried tensor X -> the node of X.next)
// after `done` iterations. Collective.
void write_checkpoint(const comm::Communicator& c, const std::string& path, const exec::Executor& ex, const physical::IaPlan& plan,
                      const std::map<std::string, int>& next_nodes, Index done, const CheckpointRecord& record);
// The same from whole tensors every rank holds (a run by rounds'), cut into
// the chunks of `plan`'s X.next nodes.
void write_checkpoint(const comm::Communicator& c, const std::string& path, const std::map<std::string, exec::HostTensor>& tensors,
                      const physical::IaPlan& plan, const std::map<std::string, int>& next_nodes, Index done, const CheckpointRecord& record);

struct Checkpoint {
  Index done = 0;  // iterations completed
  std::map<std::string, std::shared_ptr<const exec::HostTensor>> carried;
};

// Reads `path` on every rank and checks it against the deck: the same
// setup, every carried tensor present with its shape and finite values,
// iterations left to run, and the same file on every rank (the ranks
// compare digests of what they read). Mismatches are UserErrors naming
// --resume, the file and, where the deck says what differs, its place. A
// checkpoint written on other ranks or under another plan resumes with a
// warning: the result then equals the uninterrupted run's within rounding.
Checkpoint read_checkpoint(const comm::Communicator& c, const std::string& path, const PlannedDeck& planned, const CheckpointRecord& now);

}  // namespace tra::app
