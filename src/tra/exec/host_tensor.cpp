#include "tra/exec/host_tensor.hpp"

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

}  // namespace tra::exec
