#pragma once
// A digest of the values an HDF5 source's dataset holds, read on each rank
// from its own view of the file, so that the ranks can tell whether they
// read the same data: a stale copy on one node's local disk has the same
// shape (which the ranks agree on) but other values, and would train or
// compute silently from them there. Small datasets (up to 2^20 elements)
// are read whole; larger ones at 64 runs of 64 neighbours spread over the
// whole dataset (fixed, pseudo-random positions: the same on every rank),
// so that the check reads a rank at most 128 HDF5 chunks however large the
// data. Values, not bytes: two copies of the same data written at
// different times (other HDF5 timestamps) agree.
#include <string>

#include "tra/model/workflow.hpp"

namespace tra::io::hdf5 {

// Throws UserError at the tensor's place when the dataset cannot be read.
std::string dataset_digest(const model::TensorDecl& t, const model::Hdf5Source& src);
// A sparse tensor's: its three coordinate lists' digests, each as above
// (a rank reading another graph, or the same graph's lists in another
// order, tells them apart).
std::string coordinate_digest(const model::TensorDecl& t, const model::SparseSource& src);

}  // namespace tra::io::hdf5
