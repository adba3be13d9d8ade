#pragma once
// A node's result as a dataset to write: each rank contributes the chunks it
// holds, and a relation held on every rank is written once (each chunk by
// one rank). Outputs and training checkpoints are written this way.
#include <string>

#include "tra/comm/communicator.hpp"
#include "tra/exec/executor.hpp"
#include "tra/exec/host_tensor.hpp"
#include "tra/io/hdf5/writer.hpp"

namespace tra::app {

io::hdf5::DatasetData result_dataset(const exec::Executor& ex, const physical::IaPlan& plan, int node, const std::string& dataset,
                                     const comm::Communicator& c);

// A whole tensor every rank holds (a run by rounds' trained tensors),
// cut into chunks of `chunk_shape`, each written by one rank.
io::hdf5::DatasetData host_dataset(const exec::HostTensor& t, const Shape& chunk_shape, const std::string& dataset, const comm::Communicator& c);

}  // namespace tra::app
