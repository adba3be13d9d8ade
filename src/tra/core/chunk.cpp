#include "tra/core/chunk.hpp"

#include "tra/common/error.hpp"
#include "tra/core/chunk_pool.hpp"
#include "tra/core/sparse_block.hpp"

namespace tra {

namespace {

// n elements of type T: the pool's (contents undefined) or new ones (zeroed
// unless `uninitialized`).
template <class T>
ElementData<T> allocate(size_t n, bool zeroed) {
  if (ChunkPool* pool = chunk_pool()) {
    ElementData<T> d = pool->take<T>(n);
    if (zeroed) Kokkos::deep_copy(ExecSpace(), d, T(0));  // in order on the device's stream: no wait for it
    return d;
  }
  if (zeroed) return ElementData<T>("chunk", n);
  return ElementData<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "chunk"), n);
}

Chunk make(const Shape& s, DType t, bool zeroed) {
  const size_t n = static_cast<size_t>(volume(s));
  if (t == DType::Float32) return Chunk(s, allocate<float>(n, zeroed));
  return Chunk(s, allocate<double>(n, zeroed));
}

template <class T>
using HostElements = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

}  // namespace

Chunk::Chunk(const Shape& s, DType t) : Chunk(make(s, t, true)) {}

Chunk Chunk::uninitialized(const Shape& s, DType t) { return make(s, t, false); }

Chunk::Chunk(const Shape& s, const ChunkData& d) : shape(s), data(d), dtype(DType::Float64) {
  TRA_ASSERT(static_cast<Index>(d.extent(0)) == volume(s), "chunk data of " << d.extent(0) << " elements for shape " << shape_string(s));
}

Chunk::Chunk(const Shape& s, const ElementData<float>& d) : shape(s), data_f32(d), dtype(DType::Float32) {
  TRA_ASSERT(static_cast<Index>(d.extent(0)) == volume(s), "chunk data of " << d.extent(0) << " elements for shape " << shape_string(s));
}

template <>
const ElementData<double>& Chunk::elements<double>() const {
  TRA_ASSERT(!sparse, "a sparse block's chunk read as dense elements");
  TRA_ASSERT(dtype == DType::Float64, "a " << dtype_name(dtype) << " chunk read as float64");
  return data;
}

template <>
const ElementData<float>& Chunk::elements<float>() const {
  TRA_ASSERT(!sparse, "a sparse block's chunk read as dense elements");
  TRA_ASSERT(dtype == DType::Float32, "a " << dtype_name(dtype) << " chunk read as float32");
  return data_f32;
}

Chunk Chunk::of_block(std::shared_ptr<const SparseBlock> block) {
  Chunk c;
  c.shape = {block->rows(), block->cols()};
  c.dtype = block->dtype();
  c.sparse = std::move(block);
  return c;
}

long chunk_references(const Chunk& c) { return c.dtype == DType::Float32 ? chunk_references(c.data_f32) : chunk_references(c.data); }

std::vector<double> Chunk::to_host() const {
  TRA_ASSERT(!sparse, "a sparse block's chunk read as dense elements");
  std::vector<double> out(static_cast<size_t>(size()));
  if (dtype == DType::Float64) {
    Kokkos::deep_copy(HostElements<double>(out.data(), out.size()), data);
    return out;
  }
  std::vector<float> narrow(out.size());
  Kokkos::deep_copy(HostElements<float>(narrow.data(), narrow.size()), data_f32);
  std::copy(narrow.begin(), narrow.end(), out.begin());
  return out;
}

Chunk Chunk::from_host(const Shape& s, const std::vector<double>& values, DType t) {
  TRA_ASSERT(static_cast<Index>(values.size()) == volume(s), "values for " << shape_string(s));
  return from_host(s, values.data(), t);
}

Chunk Chunk::from_host(const Shape& s, const double* values, DType t) {
  Chunk c = uninitialized(s, t);
  const size_t n = static_cast<size_t>(volume(s));
  if (t == DType::Float64) {
    Kokkos::deep_copy(c.data, HostElements<const double>(values, n));
    return c;
  }
  std::vector<float> narrow(n);
  for (size_t i = 0; i < n; ++i) narrow[i] = to_float(values[i]);
  Kokkos::deep_copy(c.data_f32, HostElements<const float>(narrow.data(), n));
  return c;
}

}  // namespace tra
