#pragma once
// A whole tensor in host memory, row-major: what a training loop carries
// from one iteration to the next (a parameter's update, gathered on every
// rank) and hands to the next run's Scans, which cut their chunks from it.
#include <vector>

#include "tra/core/tensor_relation.hpp"

namespace tra::exec {

struct HostTensor {
  Shape shape;
  std::vector<Scalar> values;
};

// The chunk of shape chunk_shape at chunk-grid position key, of `dtype`.
Chunk slice(const HostTensor& t, const Shape& chunk_shape, const Key& key, DType dtype = DType::Float64);
// The tensor of tensor_shape from every one of its tuples (standard form).
HostTensor assemble(const std::vector<Tuple>& tuples, const Shape& tensor_shape, const Shape& chunk_shape);

// The row-major offsets into a tensor of `shape` of its sub-tensor at
// keep[d]'s indices along each dimension d (null: every index), in the
// sub-tensor's own row-major order: what cuts a subnetwork's weights out of
// the whole network's and puts them back (app/local_rounds.hpp).
std::vector<Index> cut_offsets(const Shape& shape, const std::vector<const std::vector<Index>*>& keep);

}  // namespace tra::exec
