#include "tra/comm/exchange.hpp"

#include <climits>

#include "tra/common/error.hpp"
#include "tra/common/scalar_types.hpp"

namespace tra::comm {
namespace {

// Can MPI read and write chunk memory directly? True for host builds; a CUDA
// build stages through host buffers (no CUDA-aware MPI is assumed).
constexpr bool kHostChunks = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;

// An MPI datatype freed by RAII.
class TypeHandle {
 public:
  TypeHandle() = default;
  ~TypeHandle() {
    if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
  }
  TypeHandle(const TypeHandle&) = delete;
  TypeHandle& operator=(const TypeHandle&) = delete;
  MPI_Datatype* out() { return &type_; }
  MPI_Datatype get() const { return type_; }
  void commit() { TRA_MPI_CHECK(MPI_Type_commit(&type_)); }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

int to_int(size_t n, const char* what) {
  TRA_ASSERT(n < static_cast<size_t>(INT_MAX), what << " count " << n << " exceeds MPI's int range");
  return static_cast<int>(n);
}

// One chunk of `floats` contiguous doubles as one MPI element, so counts are in
// chunks and stay far below INT_MAX.
void chunk_type(TypeHandle& t, Index floats) {
  TRA_ASSERT(floats > 0 && floats < INT_MAX, "chunk of " << floats << " floats cannot travel as one MPI element");
  TRA_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(floats), mpi_scalar(), t.out()));
  t.commit();
}

// The receive side: one allocation for all incoming chunks, written by MPI
// directly when chunks live in host memory (else staged and copied once);
// each received chunk is a subview of it, so no copy follows.
struct RecvSide {
  ChunkData data;
  Kokkos::View<Scalar*, Kokkos::HostSpace> staging;  // device builds only

  explicit RecvSide(size_t floats) : data(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tra::recv"), floats) {
    if constexpr (!kHostChunks)
      staging = Kokkos::View<Scalar*, Kokkos::HostSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tra::recv_host"), floats);
  }
  Scalar* host_buffer() {
    if constexpr (kHostChunks) return data.data();
    return staging.data();
  }
  void arrived() {
    if constexpr (!kHostChunks) Kokkos::deep_copy(data, staging);
  }
  Chunk chunk(size_t i, const Shape& shape, Index per) const {
    const size_t a = i * static_cast<size_t>(per);
    return Chunk(shape, Kokkos::subview(data, std::make_pair(a, a + static_cast<size_t>(per))));
  }
};

// Keys travel as a contiguous type of `arity` int64 values.
void key_type(TypeHandle& t, int arity) {
  TRA_MPI_CHECK(MPI_Type_contiguous(arity, MPI_INT64_T, t.out()));
  t.commit();
}

std::vector<Index> flat_keys(const std::vector<const Tuple*>& tuples) {
  std::vector<Index> keys;
  for (const Tuple* t : tuples) keys.insert(keys.end(), t->key.begin(), t->key.end());
  return keys;
}

Key key_at(const std::vector<Index>& keys, size_t i, int arity) {
  return Key(keys.begin() + static_cast<long>(i) * arity, keys.begin() + static_cast<long>(i + 1) * arity);
}

}  // namespace

std::vector<Tuple> broadcast(const Communicator& c, const std::vector<Tuple>& mine, int key_arity,
                             const Shape& chunk_shape, Moved& moved, const std::vector<int>* planned) {
  const int p = c.size();
  const Index per = volume(chunk_shape);
  Kokkos::fence();  // chunk kernels must be done before MPI reads their memory
  int n_mine = to_int(mine.size(), "tuple");
  std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
  if (planned) {
    TRA_ASSERT(planned->size() == static_cast<size_t>(p) && (*planned)[static_cast<size_t>(c.rank())] == n_mine,
               "broadcast: rank " << c.rank() << " holds " << n_mine << " tuples, the plan said otherwise");
    counts = *planned;
  } else {
    TRA_MPI_CHECK(MPI_Allgather(&n_mine, 1, MPI_INT, counts.data(), 1, MPI_INT, c.get()));
  }
  size_t total = 0;
  for (int r = 0; r < p; ++r) {
    displs[r] = to_int(total, "tuple");
    total += static_cast<size_t>(counts[r]);
  }
  std::vector<const Tuple*> ptrs;
  for (const auto& t : mine) ptrs.push_back(&t);

  std::vector<Index> keys(total * static_cast<size_t>(key_arity));
  if (key_arity > 0) {
    TypeHandle kt;
    key_type(kt, key_arity);
    const std::vector<Index> send_keys = flat_keys(ptrs);
    TRA_MPI_CHECK(MPI_Allgatherv(send_keys.data(), n_mine, kt.get(), keys.data(), counts.data(), displs.data(), kt.get(), c.get()));
  }
  RecvSide recv(total * static_cast<size_t>(per));
  if (per > 0) {
    // In place: every rank first puts its own chunks at its displacement.
    // (Sending them from their own memory through an hindexed datatype would
    // save that local copy, but Open MPI picks the Allgatherv algorithm from
    // the send datatype's size, which then differs between ranks holding
    // different numbers of tuples, and the ranks deadlock in different
    // algorithms.)
    Scalar* base = recv.host_buffer() + static_cast<size_t>(displs[c.rank()]) * static_cast<size_t>(per);
    for (size_t i = 0; i < mine.size(); ++i) {
      Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> dst(base + i * static_cast<size_t>(per),
                                                                                          static_cast<size_t>(per));
      Kokkos::deep_copy(dst, mine[i].chunk.data);
    }
    TypeHandle ct;
    chunk_type(ct, per);
    TRA_MPI_CHECK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv.host_buffer(), counts.data(), displs.data(), ct.get(), c.get()));
    recv.arrived();
  }
  moved.floats += static_cast<Index>(mine.size()) * per * (p - 1);

  // Own tuples are reused; the others are views into the receive buffer.
  std::vector<Tuple> out;
  out.reserve(total);
  for (int r = 0; r < p; ++r) {
    if (r == c.rank()) {
      out.insert(out.end(), mine.begin(), mine.end());
      continue;
    }
    for (int i = 0; i < counts[r]; ++i) {
      const size_t at = static_cast<size_t>(displs[r] + i);
      out.push_back({key_at(keys, at, key_arity), recv.chunk(at, chunk_shape, per)});
    }
  }
  return out;
}

std::vector<Tuple> shuffle(const Communicator& c, std::vector<Tuple> mine, int key_arity, const Shape& chunk_shape,
                           const std::function<int(const Key&)>& site, Moved& moved, const Counts* planned) {
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
  std::vector<int> send_counts(static_cast<size_t>(p)), recv_counts(static_cast<size_t>(p)), sdispl(static_cast<size_t>(p)),
      rdispl(static_cast<size_t>(p));
  std::vector<const Tuple*> ordered;  // grouped by destination
  for (int r = 0; r < p; ++r) {
    send_counts[r] = to_int(to[r].size(), "tuple");
    sdispl[r] = to_int(ordered.size(), "tuple");
    ordered.insert(ordered.end(), to[r].begin(), to[r].end());
  }
  if (planned) {
    // Checked before anything moves: a rank that sent other than planned
    // would leave its peers waiting for tuples that never come.
    TRA_ASSERT(planned->send == send_counts, "shuffle: rank " << c.rank() << " sends other tuples than the plan predicted");
    recv_counts = planned->recv;
  } else {
    TRA_MPI_CHECK(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, c.get()));
  }
  size_t received = 0;
  for (int r = 0; r < p; ++r) {
    rdispl[r] = to_int(received, "tuple");
    received += static_cast<size_t>(recv_counts[r]);
  }
  std::vector<Index> keys(received * static_cast<size_t>(key_arity));
  if (key_arity > 0) {
    TypeHandle kt;
    key_type(kt, key_arity);
    const std::vector<Index> send_keys = flat_keys(ordered);
    TRA_MPI_CHECK(MPI_Alltoallv(send_keys.data(), send_counts.data(), sdispl.data(), kt.get(), keys.data(), recv_counts.data(),
                                rdispl.data(), kt.get(), c.get()));
  }
  RecvSide recv(received * static_cast<size_t>(per));
  if (per > 0) {
    // The send side is packed: Alltoallv takes one datatype for all peers.
    std::vector<Scalar> packed(ordered.size() * static_cast<size_t>(per));
    for (size_t i = 0; i < ordered.size(); ++i) {
      Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> dst(packed.data() + i * static_cast<size_t>(per),
                                                                                          static_cast<size_t>(per));
      Kokkos::deep_copy(dst, ordered[i]->chunk.data);
    }
    TypeHandle ct;
    chunk_type(ct, per);
    TRA_MPI_CHECK(MPI_Alltoallv(packed.data(), send_counts.data(), sdispl.data(), ct.get(), recv.host_buffer(), recv_counts.data(),
                                rdispl.data(), ct.get(), c.get()));
    recv.arrived();
  }
  moved.floats += static_cast<Index>(ordered.size()) * per;
  for (size_t i = 0; i < received; ++i) {
    out.push_back({key_at(keys, i, key_arity), recv.chunk(i, chunk_shape, per)});
    TRA_ASSERT(site(out.back().key) == c.rank(), "shuffle: rank " << c.rank() << " received key " << to_string(out.back().key) << " of another rank");
  }
  return out;
}

}  // namespace tra::comm
