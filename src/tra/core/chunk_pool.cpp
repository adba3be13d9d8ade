#include "tra/core/chunk_pool.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tra {

namespace {

bool idle(const ChunkData& d) { return d.use_count() == 1; }

void drop_idle(std::vector<ChunkData>& list) { list.erase(std::remove_if(list.begin(), list.end(), idle), list.end()); }

}  // namespace

ChunkData ChunkPool::take(size_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<ChunkData>& same = by_size_[n];
  for (const ChunkData& d : same)
    if (idle(d)) return d;
  // A new buffer: first free idle ones when more bytes are idle than in use.
  size_t idle_bytes = 0, used_bytes = 0;
  for (const auto& [size, list] : by_size_)
    for (const ChunkData& d : list) (idle(d) ? idle_bytes : used_bytes) += size * sizeof(Scalar);
  if (idle_bytes > used_bytes) {
    for (auto& [size, list] : by_size_) drop_idle(list);
  }
  try {
    same.push_back(make(n));
  } catch (const std::runtime_error&) {  // out of device memory: give back every idle buffer, then try once more
    for (auto& [size, list] : by_size_) drop_idle(list);
    same.push_back(make(n));
  }
  return same.back();
}

ChunkData ChunkPool::make(size_t n) { return ChunkData(Kokkos::view_alloc(Kokkos::WithoutInitializing, "chunk"), n); }

bool ChunkPool::holds(const ChunkData& d) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = by_size_.find(d.extent(0));
  if (it == by_size_.end()) return false;
  for (const ChunkData& p : it->second)
    if (p.data() == d.data()) return true;
  return false;
}

size_t ChunkPool::buffers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto& [size, list] : by_size_) n += list.size();
  return n;
}

void ChunkPool::release_idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [size, list] : by_size_) drop_idle(list);
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

long chunk_references(const ChunkData& d) {
  const long n = d.use_count();
  const ChunkPool* pool = chunk_pool();
  return pool && n > 0 && pool->holds(d) ? n - 1 : n;
}

}  // namespace tra
