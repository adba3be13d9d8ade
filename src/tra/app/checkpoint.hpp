#pragma once
// Training checkpoints (train: checkpoint: {file, every}; tra-run --resume):
// one HDF5 file holding every loop-carried tensor (the parameters and the
// optimizer's state, dataset /X for tensor X), the number of iterations done,
// and a description of the training setup (optimizer, batch order, batches
// per epoch) that a resume must match. Written like every output: under a
// temporary name, renamed into place.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tra/comm/communicator.hpp"
#include "tra/exec/executor.hpp"
#include "tra/exec/host_tensor.hpp"
#include "tra/model/workflow.hpp"

namespace tra::app {

// What a checkpoint must match to be resumed: the update rule with its
// hyperparameters, the batch order and the batches per epoch.
std::string training_setup(const model::TrainSettings& train, Index batches_per_epoch);

// Writes the results of `next_nodes` (carried tensor X -> the node of X.next)
// after `done` iterations. Collective.
void write_checkpoint(const comm::Communicator& c, const std::string& path, const exec::Executor& ex, const physical::IaPlan& plan,
                      const std::map<std::string, int>& next_nodes, Index done, const std::string& setup);

struct Checkpoint {
  Index done = 0;  // iterations completed
  std::map<std::string, std::shared_ptr<const exec::HostTensor>> carried;
};

// Reads `path` on every rank and checks it against the deck: the same
// setup, every carried tensor present with its shape (`shapes`), iterations
// left to run. Mismatches are UserErrors naming --resume and the file.
Checkpoint read_checkpoint(const comm::Communicator& c, const std::string& path, const std::map<std::string, Shape>& shapes,
                           const std::string& setup, Index iterations);

}  // namespace tra::app
