#include "tra/core/chunk.hpp"

#include "tra/common/error.hpp"
#include "tra/core/chunk_pool.hpp"

namespace tra {

Chunk::Chunk(const Shape& s) : shape(s) {
  if (ChunkPool* pool = chunk_pool()) {
    data = pool->take(static_cast<size_t>(volume(s)));
    Kokkos::deep_copy(ExecSpace(), data, Scalar(0));  // in order on the device's stream: no wait for it
  } else {
    data = ChunkData("chunk", static_cast<size_t>(volume(s)));
  }
}

Chunk Chunk::uninitialized(const Shape& s) {
  const size_t n = static_cast<size_t>(volume(s));
  if (ChunkPool* pool = chunk_pool()) return Chunk(s, pool->take(n));
  return Chunk(s, ChunkData(Kokkos::view_alloc(Kokkos::WithoutInitializing, "chunk"), n));
}

Chunk::Chunk(const Shape& s, const ChunkData& d) : shape(s), data(d) {
  TRA_ASSERT(static_cast<Index>(d.extent(0)) == volume(s), "chunk data of " << d.extent(0) << " elements for shape " << shape_string(s));
}

std::vector<Scalar> Chunk::to_host() const {
  std::vector<Scalar> out(static_cast<size_t>(size()));
  Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(out.data(), out.size());
  Kokkos::deep_copy(host, data);
  return out;
}

Chunk Chunk::from_host(const Shape& s, const std::vector<Scalar>& values) {
  TRA_ASSERT(static_cast<Index>(values.size()) == volume(s), "values for " << shape_string(s));
  return from_host(s, values.data());
}

Chunk Chunk::from_host(const Shape& s, const Scalar* values) {
  Chunk c = uninitialized(s);
  Kokkos::View<const Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(values, c.data.extent(0));
  Kokkos::deep_copy(c.data, host);
  return c;
}

}  // namespace tra
