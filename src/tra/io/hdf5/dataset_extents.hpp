#pragma once
// An HDF5 source's dataset checked and measured without reading it: the
// file opens, the dataset exists, holds numbers, is not empty, and every
// filter it is compressed with can be decoded here. The deck reader asks it
// for the shape of a tensor the deck gives none (io/deck), the reader checks
// declared shapes against it (reader.hpp).
#include "tra/model/workflow.hpp"

namespace tra::io::hdf5 {

// The dataset's extents; a UserError at the tensor's place in the deck when
// a check fails.
Shape dataset_extents(const model::TensorDecl& t, const model::Hdf5Source& src);

}  // namespace tra::io::hdf5
