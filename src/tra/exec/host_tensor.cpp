#include "tra/exec/host_tensor.hpp"

#include <numeric>

namespace tra::exec {

namespace {

// Row-major offset of the element at `local` in chunk `key`.
Index offset(const Shape& shape, const Shape& chunk_shape, const Key& key, const Key& local) {
  Index o = 0;
  for (size_t i = 0; i < shape.size(); ++i) o = o * shape[i] + key[i] * chunk_shape[i] + local[i];
  return o;
}

}  // namespace

Chunk slice(const HostTensor& t, const Shape& chunk_shape, const Key& key, DType dtype) {
  std::vector<Scalar> v;
  v.reserve(static_cast<size_t>(volume(chunk_shape)));
  for_each_key(chunk_shape, [&](const Key& local) { v.push_back(t.values[static_cast<size_t>(offset(t.shape, chunk_shape, key, local))]); });
  return Chunk::from_host(chunk_shape, v, dtype);
}

HostTensor assemble(const std::vector<Tuple>& tuples, const Shape& tensor_shape, const Shape& chunk_shape) {
  HostTensor t{tensor_shape, std::vector<Scalar>(static_cast<size_t>(volume(tensor_shape)))};
  for (const Tuple& tu : tuples) {
    const std::vector<Scalar> v = tu.chunk.to_host();
    size_t k = 0;
    for_each_key(chunk_shape, [&](const Key& local) { t.values[static_cast<size_t>(offset(tensor_shape, chunk_shape, tu.key, local))] = v[k++]; });
  }
  return t;
}

std::vector<Index> cut_offsets(const Shape& shape, const std::vector<const std::vector<Index>*>& keep) {
  TRA_ASSERT(keep.size() == shape.size(), "a cut names every dimension");
  // The indices kept along each dimension, and the sub-tensor's shape.
  std::vector<std::vector<Index>> along(shape.size());
  Shape sub(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (keep[d]) along[d] = *keep[d];
    else along[d].resize(static_cast<size_t>(shape[d])), std::iota(along[d].begin(), along[d].end(), Index{0});
    sub[d] = static_cast<Index>(along[d].size());
  }
  std::vector<Index> out;
  out.reserve(static_cast<size_t>(volume(sub)));
  for_each_key(sub, [&](const Key& at) {
    Index o = 0;
    for (size_t d = 0; d < shape.size(); ++d) o = o * shape[d] + along[d][static_cast<size_t>(at[d])];
    out.push_back(o);
  });
  return out;
}

}  // namespace tra::exec
