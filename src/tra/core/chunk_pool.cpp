#include "tra/core/chunk_pool.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tra {

namespace {

template <class T>
bool idle(const ElementData<T>& d) {
  return d.use_count() == 1;
}

template <class T>
void drop_idle(std::map<size_t, std::vector<ElementData<T>>>& shelf) {
  for (auto& [size, list] : shelf) list.erase(std::remove_if(list.begin(), list.end(), idle<T>), list.end());
}

template <class T>
size_t shelf_bytes(const std::map<size_t, std::vector<ElementData<T>>>& shelf, bool idle_ones) {
  size_t bytes = 0;
  for (const auto& [size, list] : shelf)
    for (const ElementData<T>& d : list)
      if (idle(d) == idle_ones) bytes += size * sizeof(T);
  return bytes;
}

}  // namespace

template <>
ChunkPool::Shelf<double>& ChunkPool::shelf<double>() {
  return doubles_;
}
template <>
ChunkPool::Shelf<float>& ChunkPool::shelf<float>() {
  return floats_;
}
template <>
const ChunkPool::Shelf<double>& ChunkPool::shelf<double>() const {
  return doubles_;
}
template <>
const ChunkPool::Shelf<float>& ChunkPool::shelf<float>() const {
  return floats_;
}

size_t ChunkPool::bytes(bool idle_ones) const { return shelf_bytes(doubles_, idle_ones) + shelf_bytes(floats_, idle_ones); }

void ChunkPool::drop_idle() {
  tra::drop_idle(doubles_);
  tra::drop_idle(floats_);
}

template <class T>
ElementData<T> ChunkPool::take(size_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<ElementData<T>>& same = shelf<T>()[n];
  for (const ElementData<T>& d : same)
    if (idle(d)) return d;
  // A new buffer: first free idle ones when more bytes are idle than in use.
  if (bytes(true) > bytes(false)) drop_idle();
  auto make = [n] { return ElementData<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "chunk"), n); };
  try {
    same.push_back(make());
  } catch (const std::runtime_error&) {  // out of device memory: give back every idle buffer, then try once more
    drop_idle();
    same.push_back(make());
  }
  return same.back();
}

template <class T>
bool ChunkPool::holds(const ElementData<T>& d) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = shelf<T>().find(d.extent(0));
  if (it == shelf<T>().end()) return false;
  for (const ElementData<T>& p : it->second)
    if (p.data() == d.data()) return true;
  return false;
}

size_t ChunkPool::buffers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto& [size, list] : doubles_) n += list.size();
  for (const auto& [size, list] : floats_) n += list.size();
  return n;
}

void ChunkPool::release_idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  drop_idle();
}

ChunkPool* chunk_pool() {
  // A host build pools only when TRA_CHUNK_POOL=1: the tests run the
  // device's allocation path through the engine that way.
  static ChunkPool* pool = []() -> ChunkPool* {
    const char* forced = std::getenv("TRA_CHUNK_POOL");
    if (std::is_same_v<MemSpace, Kokkos::HostSpace> && !(forced && std::string(forced) == "1")) return nullptr;
    auto* p = new ChunkPool;
    // Device memory must be freed before Kokkos is finalized; the pool
    // itself lives to the end (a chunk destroyed later must not find it gone).
    Kokkos::push_finalize_hook([p] { p->release_idle(); });
    return p;
  }();
  return pool;
}

template <class T>
long chunk_references(const ElementData<T>& d) {
  const long n = d.use_count();
  const ChunkPool* pool = chunk_pool();
  return pool && n > 0 && pool->holds(d) ? n - 1 : n;
}

template ElementData<double> ChunkPool::take<double>(size_t);
template ElementData<float> ChunkPool::take<float>(size_t);
template bool ChunkPool::holds<double>(const ElementData<double>&) const;
template bool ChunkPool::holds<float>(const ElementData<float>&) const;
template long chunk_references<double>(const ElementData<double>&);
template long chunk_references<float>(const ElementData<float>&);

}  // namespace tra
