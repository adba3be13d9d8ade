#pragma once
// The data tensors' HDF5 files (every tensor read from a file but the
// parameters) as they were when a training run began (device, inode, size,
// modification time). A run that keeps its data after its first read
// (exec/input_cache.hpp) does not read the files again, so it checks them at
// each epoch instead: a file replaced or rewritten mid-run stops it there,
// as reading the changed file stops a run that reads every iteration
// (docs/training.md).
#include <string>
#include <vector>

#include <sys/stat.h>

#include "tra/comm/communicator.hpp"
#include "tra/model/workflow.hpp"

namespace tra::app {

class InputFileStamps {
 public:
  explicit InputFileStamps(const model::Workflow& wf);
  // Collective: a UserError on every rank, at the first data tensor whose
  // file any rank finds changed.
  void check(const comm::Communicator& c) const;

 private:
  struct Stamp {
    const model::TensorDecl* tensor;
    std::string file;
    bool found;
    struct stat st;
  };
  std::vector<Stamp> stamps_;
};

}  // namespace tra::app
