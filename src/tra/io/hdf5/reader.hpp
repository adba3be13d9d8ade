#pragma once
// Reading input tensors from HDF5 datasets. Validation (the file opens, the
// dataset exists, is numeric, and has the declared rank and shape) happens
// before anything runs, so a bad deck fails early with file and dataset named.
// Each rank then reads only the chunks it owns, as hyperslabs.
#include <vector>

#include "tra/comm/communicator.hpp"
#include "tra/core/tensor_relation.hpp"
#include "tra/model/workflow.hpp"

namespace tra::io::hdf5 {

// The model the readers fill (model/workflow.hpp).
using model::Hdf5Source;
using model::TensorDecl;

// Throws UserError (at the tensor's deck location) when the source does not
// match: the dataset's shape is the tensor's (a batch tensor's whole data),
// or holds it from `src.start` on (select:).
void validate_source(const TensorDecl& t, const Hdf5Source& src);

// The chunks at `keys`, each of `chunk_shape`, of the part of the dataset
// that starts at `origin` (empty: at 0; a batch's first row), itself
// counted from the source's select start, as chunks of `dtype` (a float
// dataset's values, of any float type, converted to double by HDF5, then
// rounded to float once for float32; an integer dataset's exactly. A
// UserError for an integer `dtype` cannot hold exactly, beyond 2^53 in
// float64, 2^24 in float32, and for a finite float beyond float32's range
// in float32). Collective over `c` (the
// file is opened with MPI-IO); every rank must call it, possibly with no keys.
std::vector<Tuple> read_chunks(const comm::Communicator& c, const Hdf5Source& src, const Shape& chunk_shape, const std::vector<Key>& keys,
                               const Shape& origin = {}, DType dtype = DType::Float64);

}  // namespace tra::io::hdf5
