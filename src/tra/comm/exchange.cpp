#include "tra/comm/exchange.hpp"

#include <climits>

#include "tra/common/error.hpp"

namespace tra::comm {
namespace {

// An MPI datatype of one chunk (`floats` contiguous doubles), freed by RAII.
class ChunkType {
 public:
  explicit ChunkType(Index floats) {
    TRA_ASSERT(floats > 0 && floats < INT_MAX, "chunk of " << floats << " floats cannot travel as one MPI element");
    TRA_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(floats), MPI_DOUBLE, &type_));
    TRA_MPI_CHECK(MPI_Type_commit(&type_));
  }
  ~ChunkType() { MPI_Type_free(&type_); }
  ChunkType(const ChunkType&) = delete;
  ChunkType& operator=(const ChunkType&) = delete;
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

int to_int(size_t n, const char* what) {
  TRA_ASSERT(n < static_cast<size_t>(INT_MAX), what << " count " << n << " exceeds MPI's int range");
  return static_cast<int>(n);
}

// Append tuples' keys and chunk data to flat host buffers.
void pack(const std::vector<const Tuple*>& tuples, std::vector<Index>& keys, std::vector<Scalar>& data, Index per) {
  for (const Tuple* t : tuples) {
    keys.insert(keys.end(), t->key.begin(), t->key.end());
    const size_t at = data.size();
    data.resize(at + static_cast<size_t>(per));
    Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> dst(data.data() + at, static_cast<size_t>(per));
    Kokkos::deep_copy(dst, t->chunk.data);
  }
}

void unpack(const Index* keys, const Scalar* data, size_t count, int arity, const Shape& chunk_shape,
            std::vector<Tuple>& out) {
  const size_t per = static_cast<size_t>(volume(chunk_shape));
  for (size_t i = 0; i < count; ++i) {
    Key k(keys + i * static_cast<size_t>(arity), keys + (i + 1) * static_cast<size_t>(arity));
    out.push_back({std::move(k), Chunk::from_host(chunk_shape, data + i * per)});
  }
}

}  // namespace

std::vector<Tuple> broadcast(const Communicator& c, const std::vector<Tuple>& mine, int key_arity,
                             const Shape& chunk_shape, Moved& moved) {
  const int p = c.size();
  const Index per = volume(chunk_shape);
  Kokkos::fence();  // chunk kernels must be done before MPI reads their memory
  int n_mine = to_int(mine.size(), "tuple");
  std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
  TRA_MPI_CHECK(MPI_Allgather(&n_mine, 1, MPI_INT, counts.data(), 1, MPI_INT, c.get()));
  size_t total = 0;
  for (int r = 0; r < p; ++r) {
    displs[r] = to_int(total, "tuple");
    total += static_cast<size_t>(counts[r]);
  }
  std::vector<const Tuple*> ptrs;
  for (const auto& t : mine) ptrs.push_back(&t);
  std::vector<Index> send_keys;
  std::vector<Scalar> send_data;
  pack(ptrs, send_keys, send_data, per);

  std::vector<Index> keys(total * static_cast<size_t>(key_arity));
  std::vector<Scalar> data(total * static_cast<size_t>(per));
  if (key_arity > 0) {
    MPI_Datatype key_type;
    TRA_MPI_CHECK(MPI_Type_contiguous(key_arity, MPI_INT64_T, &key_type));
    TRA_MPI_CHECK(MPI_Type_commit(&key_type));
    TRA_MPI_CHECK(MPI_Allgatherv(send_keys.data(), n_mine, key_type, keys.data(), counts.data(), displs.data(), key_type, c.get()));
    MPI_Type_free(&key_type);
  }
  if (per > 0) {
    ChunkType ct(per);
    TRA_MPI_CHECK(MPI_Allgatherv(send_data.data(), n_mine, ct.get(), data.data(), counts.data(), displs.data(), ct.get(), c.get()));
  }
  moved.floats += static_cast<Index>(mine.size()) * per * (p - 1);

  // Own tuples are reused; the others are unpacked.
  std::vector<Tuple> out;
  out.reserve(total);
  for (int r = 0; r < p; ++r) {
    if (r == c.rank()) {
      out.insert(out.end(), mine.begin(), mine.end());
      continue;
    }
    const size_t first = static_cast<size_t>(displs[r]);
    unpack(keys.data() + first * static_cast<size_t>(key_arity), data.data() + first * static_cast<size_t>(per),
           static_cast<size_t>(counts[r]), key_arity, chunk_shape, out);
  }
  return out;
}

std::vector<Tuple> shuffle(const Communicator& c, std::vector<Tuple> mine, int key_arity, const Shape& chunk_shape,
                           const std::function<int(const Key&)>& site, Moved& moved) {
  const int p = c.size();
  const Index per = volume(chunk_shape);
  Kokkos::fence();
  std::vector<std::vector<const Tuple*>> to(static_cast<size_t>(p));
  std::vector<Tuple> out;
  for (const auto& t : mine) {
    const int dest = site(t.key);
    TRA_ASSERT(dest >= 0 && dest < p, "site " << dest << " of key " << to_string(t.key));
    if (dest == c.rank()) out.push_back(t);
    else to[static_cast<size_t>(dest)].push_back(&t);
  }
  std::vector<int> send_counts(static_cast<size_t>(p)), recv_counts(static_cast<size_t>(p)), sdispl(static_cast<size_t>(p)), rdispl(static_cast<size_t>(p));
  std::vector<Index> send_keys;
  std::vector<Scalar> send_data;
  size_t sent = 0;
  for (int r = 0; r < p; ++r) {
    send_counts[r] = to_int(to[r].size(), "tuple");
    sdispl[r] = to_int(sent, "tuple");
    sent += to[r].size();
    pack(to[r], send_keys, send_data, per);
  }
  TRA_MPI_CHECK(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, c.get()));
  size_t received = 0;
  for (int r = 0; r < p; ++r) {
    rdispl[r] = to_int(received, "tuple");
    received += static_cast<size_t>(recv_counts[r]);
  }
  std::vector<Index> keys(received * static_cast<size_t>(key_arity));
  std::vector<Scalar> data(received * static_cast<size_t>(per));
  if (key_arity > 0) {
    MPI_Datatype key_type;
    TRA_MPI_CHECK(MPI_Type_contiguous(key_arity, MPI_INT64_T, &key_type));
    TRA_MPI_CHECK(MPI_Type_commit(&key_type));
    TRA_MPI_CHECK(MPI_Alltoallv(send_keys.data(), send_counts.data(), sdispl.data(), key_type, keys.data(), recv_counts.data(),
                                rdispl.data(), key_type, c.get()));
    MPI_Type_free(&key_type);
  }
  if (per > 0) {
    ChunkType ct(per);
    TRA_MPI_CHECK(MPI_Alltoallv(send_data.data(), send_counts.data(), sdispl.data(), ct.get(), data.data(), recv_counts.data(),
                                rdispl.data(), ct.get(), c.get()));
  }
  moved.floats += static_cast<Index>(sent) * per;
  mine.clear();
  unpack(keys.data(), data.data(), received, key_arity, chunk_shape, out);
  return out;
}

}  // namespace tra::comm
