#include "tra/comm/exchange.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>

#include "tra/comm/chunk_transport.hpp"
#include "tra/common/error.hpp"
#include "tra/common/scalar_types.hpp"

namespace tra::comm {
namespace {

// MPI reads and writes chunk memory where it lives, in host memory or, with
// a GPU-aware MPI, in device memory; else it is staged through host
// buffers (comm/chunk_transport.hpp).

// Staging goes through pinned host memory (copies at the bus' speed, not
// through a pageable bounce buffer), kept between exchanges and grown by
// doubling: a pinned allocation costs more than the copy it serves.
#if defined(KOKKOS_ENABLE_CUDA)
using StagingSpace = Kokkos::CudaHostPinnedSpace;
#else
using StagingSpace = Kokkos::HostSpace;
#endif
template <class T>
using StagingView = Kokkos::View<T*, StagingSpace>;

template <class T>
StagingView<T>& send_staging() {
  static StagingView<T> v;
  return v;
}

template <class T>
StagingView<T>& recv_staging() {
  static StagingView<T> v;
  return v;
}

template <class T>
T* staging(StagingView<T>& kept, size_t floats) {
  static bool hooked = false;
  if (!hooked) {  // Views must be gone before Kokkos finalizes
    Kokkos::push_finalize_hook([] {
      send_staging<T>() = StagingView<T>();
      recv_staging<T>() = StagingView<T>();
    });
    hooked = true;
  }
  if (kept.extent(0) < floats)
    kept = StagingView<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tra::staging"), std::max(floats, 2 * kept.extent(0)));
  return kept.data();
}

// The chunks of `tuples`, `per` floats each, one after another from `dest`
// (memory of the chunks' space). On a host, a memcpy each (the fastest copy
// there is); on a device, one kernel over (chunk, element) for all, where a
// copy per chunk would each be a separate transfer.
template <class T>
void pack(const std::vector<const Tuple*>& tuples, Index per, T* dest) {
  const Index n = static_cast<Index>(tuples.size());
  if (n == 0 || per == 0) return;
  if constexpr (kHostChunks) {
    for (Index i = 0; i < n; ++i)
      std::memcpy(dest + i * per, tuples[static_cast<size_t>(i)]->chunk.elements<T>().data(), static_cast<size_t>(per) * sizeof(T));
    return;
  }
  Kokkos::View<std::uintptr_t*, MemSpace> from(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tra::pack_from"), static_cast<size_t>(n));
  auto host = Kokkos::create_mirror_view(from);
  for (Index i = 0; i < n; ++i) host(i) = reinterpret_cast<std::uintptr_t>(tuples[static_cast<size_t>(i)]->chunk.elements<T>().data());
  Kokkos::deep_copy(from, host);
  Kokkos::View<T*, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> to(dest, static_cast<size_t>(n * per));
  using Tiles = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
  Kokkos::parallel_for(
      "tra::pack", Tiles({0, 0}, {n, per}),
      KOKKOS_LAMBDA(const Index t, const Index i) { to(t * per + i) = reinterpret_cast<const T*>(from(t))[i]; });
  Kokkos::fence();
}

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

// One chunk of `floats` contiguous elements of type T as one MPI element, so
// counts are in chunks and stay far below INT_MAX.
template <class T>
void chunk_type(TypeHandle& t, Index floats) {
  TRA_ASSERT(floats > 0 && floats < INT_MAX, "chunk of " << floats << " floats cannot travel as one MPI element");
  TRA_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(floats), ElementTypes<T>::mpi(), t.out()));
  t.commit();
}

// Whether chunks pass through host buffers on their way to and from MPI.
bool staged() { return chunk_transport() == ChunkTransport::Staged; }

// The receive side: one allocation for all incoming chunks, written by MPI
// directly where it reads chunk memory (else staged and copied once); each
// received chunk is a subview of it, so no copy follows.
template <class T>
struct RecvSide {
  ElementData<T> data;
  T* staged_at = nullptr;  // staged: the pinned buffer MPI writes

  explicit RecvSide(size_t floats) : data(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tra::recv"), floats) {
    if (staged()) staged_at = staging(recv_staging<T>(), floats);
  }
  T* mpi_buffer() { return staged_at ? staged_at : data.data(); }
  // Floats [from, to) of the staging buffer to the chunks' memory (where
  // MPI wrote them in place, nothing is left to do).
  void arrived(size_t from, size_t to) {
    if (!staged_at || to <= from) return;
    Kokkos::View<T*, StagingSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> src(staged_at + from, to - from);
    Kokkos::deep_copy(Kokkos::subview(data, std::make_pair(from, to)), src);
  }
  Chunk chunk(size_t i, const Shape& shape, Index per) const {
    const size_t a = i * static_cast<size_t>(per);
    return Chunk(shape, ElementData<T>(Kokkos::subview(data, std::make_pair(a, a + static_cast<size_t>(per)))));
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

// Every tuple holds elements of type T (else an internal error: a relation
// has one element type).
template <class T>
void check_type(const std::vector<Tuple>& tuples) {
  for (const Tuple& t : tuples)
    TRA_ASSERT(t.chunk.dtype == dtype_of<T>(), "a " << dtype_name(t.chunk.dtype) << " chunk in a " << dtype_name(dtype_of<T>()) << " exchange");
}

template <class T>
std::vector<Tuple> broadcast_as(const Communicator& c, const std::vector<Tuple>& mine, int key_arity, const Shape& chunk_shape, Moved& moved,
                                const std::vector<int>* planned) {
  check_type<T>(mine);
  const int p = c.size();
  const Index per = volume(chunk_shape);
  if (p == 1) return mine;  // nothing leaves the rank: nothing is copied
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
  RecvSide<T> recv(total * static_cast<size_t>(per));
  if (per > 0) {
    // In place: every rank first puts its own chunks at its displacement.
    // (Sending them from their own memory through an hindexed datatype would
    // save that local copy, but Open MPI picks the Allgatherv algorithm from
    // the send datatype's size, which then differs between ranks holding
    // different numbers of tuples, and the ranks deadlock in different
    // algorithms.)
    // (Staged, the own chunks are packed on the device and copied to the
    // host in one transfer; they are not copied back.)
    const size_t own_from = static_cast<size_t>(displs[c.rank()]) * static_cast<size_t>(per);
    const size_t own_to = own_from + mine.size() * static_cast<size_t>(per);
    pack(ptrs, per, recv.data.data() + own_from);
    if (recv.staged_at) {
      Kokkos::View<T*, StagingSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> own(recv.staged_at + own_from, own_to - own_from);
      Kokkos::deep_copy(own, Kokkos::subview(recv.data, std::make_pair(own_from, own_to)));
    }
    TypeHandle ct;
    chunk_type<T>(ct, per);
    TRA_MPI_CHECK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv.mpi_buffer(), counts.data(), displs.data(), ct.get(), c.get()));
    recv.arrived(0, own_from);
    recv.arrived(own_to, total * static_cast<size_t>(per));
  }
  moved.floats += static_cast<Index>(mine.size()) * per * (p - 1);

  // Every tuple, this rank's own too, is a view into the receive buffer,
  // which holds a copy of the own chunks anyway (MPI_Allgatherv writes all
  // ranks' chunks into one buffer): the result then holds the relation
  // once, and the input's chunks are freed after their last use, not kept
  // beside their copy for as long as the broadcast relation lives.
  std::vector<Tuple> out;
  out.reserve(total);
  for (int r = 0; r < p; ++r) {
    for (int i = 0; i < counts[r]; ++i) {
      const size_t at = static_cast<size_t>(displs[r] + i);
      out.push_back({key_at(keys, at, key_arity), recv.chunk(at, chunk_shape, per)});
    }
  }
  return out;
}

// A shuffle's outgoing side: the tuples that stay, and the others grouped
// by destination with their counts (checked against the plan's, which then
// give the incoming counts without an exchange).
struct Outgoing {
  std::vector<Tuple> staying;
  std::vector<const Tuple*> ordered;  // grouped by destination rank
  std::vector<int> send_counts, sdispl, recv_counts, rdispl;
  size_t received = 0;  // tuples
};

Outgoing sort_outgoing(const Communicator& c, const std::vector<Tuple>& mine, const std::function<int(const Key&)>& site, const Counts* planned) {
  const int p = c.size();
  Outgoing o;
  std::vector<std::vector<const Tuple*>> to(static_cast<size_t>(p));
  for (const auto& t : mine) {
    const int dest = site(t.key);
    TRA_ASSERT(dest >= 0 && dest < p, "site " << dest << " of key " << to_string(t.key));
    if (dest == c.rank()) o.staying.push_back(t);
    else to[static_cast<size_t>(dest)].push_back(&t);
  }
  o.send_counts.resize(static_cast<size_t>(p));
  o.recv_counts.resize(static_cast<size_t>(p));
  o.sdispl.resize(static_cast<size_t>(p));
  o.rdispl.resize(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) {
    o.send_counts[r] = to_int(to[r].size(), "tuple");
    o.sdispl[r] = to_int(o.ordered.size(), "tuple");
    o.ordered.insert(o.ordered.end(), to[r].begin(), to[r].end());
  }
  if (planned) {
    // Checked before anything moves: a rank that sent other than planned
    // would leave its peers waiting for tuples that never come.
    TRA_ASSERT(planned->send == o.send_counts, "shuffle: rank " << c.rank() << " sends other tuples than the plan predicted");
    o.recv_counts = planned->recv;
  } else {
    TRA_MPI_CHECK(MPI_Alltoall(o.send_counts.data(), 1, MPI_INT, o.recv_counts.data(), 1, MPI_INT, c.get()));
  }
  for (int r = 0; r < p; ++r) {
    o.rdispl[r] = to_int(o.received, "tuple");
    o.received += static_cast<size_t>(o.recv_counts[r]);
  }
  return o;
}

// The keys of the outgoing tuples, `arity` int64 each (and, where `extra`
// is given, one more value per tuple after its key), to their ranks.
std::vector<Index> exchange_keys(const Communicator& c, const Outgoing& o, int arity, const std::vector<Index>* extra = nullptr) {
  const int width = arity + (extra ? 1 : 0);
  std::vector<Index> keys(o.received * static_cast<size_t>(width));
  if (width == 0) return keys;
  std::vector<Index> send;
  for (size_t i = 0; i < o.ordered.size(); ++i) {
    send.insert(send.end(), o.ordered[i]->key.begin(), o.ordered[i]->key.end());
    if (extra) send.push_back((*extra)[i]);
  }
  TypeHandle kt;
  key_type(kt, width);
  TRA_MPI_CHECK(MPI_Alltoallv(send.data(), o.send_counts.data(), o.sdispl.data(), kt.get(), keys.data(), o.recv_counts.data(), o.rdispl.data(),
                              kt.get(), c.get()));
  return keys;
}

template <class T>
std::vector<Tuple> shuffle_as(const Communicator& c, std::vector<Tuple> mine, int key_arity, const Shape& chunk_shape,
                              const std::function<int(const Key&)>& site, Moved& moved, const Counts* planned) {
  check_type<T>(mine);
  const int p = c.size();
  const Index per = volume(chunk_shape);
  if (p == 1) return mine;  // every tuple is already where it goes
  Kokkos::fence();
  Outgoing o = sort_outgoing(c, mine, site, planned);
  const std::vector<Index> keys = exchange_keys(c, o, key_arity);
  RecvSide<T> recv(o.received * static_cast<size_t>(per));
  if (per > 0) {
    // The send side is packed (Alltoallv takes one datatype for all peers)
    // where the chunks are, and when staged, copied to the host in one transfer.
    const size_t floats = o.ordered.size() * static_cast<size_t>(per);
    ElementData<T> packed(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tra::packed"), floats);
    pack(o.ordered, per, packed.data());
    T* send = packed.data();
    if (staged()) {
      send = staging(send_staging<T>(), floats);
      Kokkos::deep_copy(Kokkos::View<T*, StagingSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(send, floats), packed);
    }
    TypeHandle ct;
    chunk_type<T>(ct, per);
    TRA_MPI_CHECK(MPI_Alltoallv(send, o.send_counts.data(), o.sdispl.data(), ct.get(), recv.mpi_buffer(), o.recv_counts.data(), o.rdispl.data(),
                                ct.get(), c.get()));
    recv.arrived(0, o.received * static_cast<size_t>(per));
  }
  moved.floats += static_cast<Index>(o.ordered.size()) * per;
  std::vector<Tuple> out = std::move(o.staying);
  for (size_t i = 0; i < o.received; ++i) {
    out.push_back({key_at(keys, i, key_arity), recv.chunk(i, chunk_shape, per)});
    TRA_ASSERT(site(out.back().key) == c.rank(), "shuffle: rank " << c.rank() << " received key " << to_string(out.back().key) << " of another rank");
  }
  return out;
}

// The rows a tuple sends: its filled ones (a sparse product's result), or all.
Index rows_sent(const Tuple& t, Index rows) { return t.chunk.has_row_support ? static_cast<Index>(t.chunk.row_support.extent(0)) : rows; }

// Rows `rows` (row numbers, in the chunks' memory; all rows in order where
// empty) of `from`, each `width` elements, one after another at `to`.
template <class T>
void gather_rows(const ElementData<T>& from, const OrdinalData& rows, Index n, Index width, T* to) {
  Kokkos::View<T*, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> dest(to, static_cast<size_t>(n * width));
  if (rows.extent(0) == 0 && n > 0) {
    Kokkos::deep_copy(dest, Kokkos::subview(from, std::make_pair(size_t{0}, static_cast<size_t>(n * width))));
    return;
  }
  Kokkos::parallel_for(
      "tra::gather_rows", RangePolicy(0, n * width), KOKKOS_LAMBDA(const Index i) { dest(i) = from(rows(i / width) * width + i % width); });
}

// The same the other way: consecutive rows from `from` into rows `rows` of `to`.
template <class T>
void scatter_rows(const ElementData<T>& from, size_t at, const OrdinalData& rows, Index width, const ElementData<T>& to) {
  const Index n = static_cast<Index>(rows.extent(0));
  Kokkos::parallel_for(
      "tra::scatter_rows", RangePolicy(0, n * width),
      KOKKOS_LAMBDA(const Index i) { to(rows(i / width) * width + i % width) = from(at + static_cast<size_t>(i)); });
}

// A shuffle of a sparse product's result: each tuple sends its filled rows
// alone (with their numbers), and arrives as a chunk zero elsewhere.
template <class T>
std::vector<Tuple> shuffle_rows_as(const Communicator& c, std::vector<Tuple> mine, int key_arity, const Shape& chunk_shape,
                                   const std::function<int(const Key&)>& site, Moved& moved, const Counts* planned) {
  check_type<T>(mine);
  const int p = c.size();
  const Index rows = chunk_shape.empty() ? 0 : chunk_shape[0];
  if (p == 1 || rows == 0 || volume(chunk_shape) == 0) return shuffle_as<T>(c, std::move(mine), key_arity, chunk_shape, site, moved, planned);
  const Index width = volume(chunk_shape) / rows;
  Kokkos::fence();
  Outgoing o = sort_outgoing(c, mine, site, planned);
  // Each tuple's row count travels after its key.
  std::vector<Index> sent_rows;
  std::vector<int> row_counts(static_cast<size_t>(p), 0), row_displ(static_cast<size_t>(p), 0);
  for (int r = 0, t = 0; r < p; ++r)
    for (int i = 0; i < o.send_counts[r]; ++i, ++t) {
      sent_rows.push_back(rows_sent(*o.ordered[static_cast<size_t>(t)], rows));
      row_counts[r] = to_int(static_cast<size_t>(row_counts[r] + sent_rows.back()), "row");
    }
  const std::vector<Index> keys = exchange_keys(c, o, key_arity, &sent_rows);
  std::vector<int> in_rows(static_cast<size_t>(p), 0), in_displ(static_cast<size_t>(p), 0);
  std::vector<Index> got_rows(o.received);
  for (int r = 0, t = 0; r < p; ++r)
    for (int i = 0; i < o.recv_counts[r]; ++i, ++t) {
      got_rows[static_cast<size_t>(t)] = keys[static_cast<size_t>(t) * (key_arity + 1) + static_cast<size_t>(key_arity)];
      in_rows[r] = to_int(static_cast<size_t>(in_rows[r] + got_rows[static_cast<size_t>(t)]), "row");
    }
  size_t rows_out = 0, rows_in = 0;
  for (int r = 0; r < p; ++r) {
    row_displ[r] = to_int(rows_out, "row");
    rows_out += static_cast<size_t>(row_counts[r]);
    in_displ[r] = to_int(rows_in, "row");
    rows_in += static_cast<size_t>(in_rows[r]);
  }
  // The row numbers (all of a chunk's, in order, for one sent whole).
  std::vector<int> numbers_out, numbers_in(rows_in);
  for (size_t t = 0; t < o.ordered.size(); ++t) {
    const Chunk& ch = o.ordered[t]->chunk;
    if (!ch.has_row_support) {
      for (Index r = 0; r < rows; ++r) numbers_out.push_back(static_cast<int>(r));
      continue;
    }
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ch.row_support);
    numbers_out.insert(numbers_out.end(), host.data(), host.data() + host.extent(0));
  }
  TRA_MPI_CHECK(MPI_Alltoallv(numbers_out.data(), row_counts.data(), row_displ.data(), MPI_INT, numbers_in.data(), in_rows.data(), in_displ.data(),
                              MPI_INT, c.get()));
  // The rows themselves, a row one MPI element.
  ElementData<T> packed(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tra::packed"), rows_out * static_cast<size_t>(width));
  for (size_t t = 0, at = 0; t < o.ordered.size(); at += static_cast<size_t>(sent_rows[t]), ++t) {
    const Chunk& ch = o.ordered[t]->chunk;
    gather_rows<T>(ch.elements<T>(), ch.has_row_support ? ch.row_support : OrdinalData(), sent_rows[t], width,
                   packed.data() + at * static_cast<size_t>(width));
  }
  Kokkos::fence();
  T* send = packed.data();
  if (staged()) {
    send = staging(send_staging<T>(), packed.extent(0));
    Kokkos::deep_copy(Kokkos::View<T*, StagingSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(send, packed.extent(0)), packed);
  }
  RecvSide<T> recv(rows_in * static_cast<size_t>(width));
  TypeHandle row_type;
  chunk_type<T>(row_type, width);
  TRA_MPI_CHECK(MPI_Alltoallv(send, row_counts.data(), row_displ.data(), row_type.get(), recv.mpi_buffer(), in_rows.data(), in_displ.data(),
                              row_type.get(), c.get()));
  recv.arrived(0, rows_in * static_cast<size_t>(width));
  moved.floats += static_cast<Index>(rows_out) * width;
  std::vector<Tuple> out = std::move(o.staying);
  for (size_t t = 0, at = 0; t < o.received; at += static_cast<size_t>(got_rows[t]), ++t) {
    Key key = key_at(keys, t, key_arity + 1);
    key.pop_back();
    TRA_ASSERT(site(key) == c.rank(), "shuffle: rank " << c.rank() << " received key " << to_string(key) << " of another rank");
    // Each tuple in a chunk of its own, none a view into the buffer (which
    // holds the rows sent alone, and then goes on return, as the memory
    // estimate counts it).
    if (got_rows[t] == rows) {  // every row, in order
      const size_t from = at * static_cast<size_t>(width);
      Chunk whole = Chunk::uninitialized(chunk_shape, dtype_of<T>());
      Kokkos::deep_copy(whole.elements<T>(), Kokkos::subview(recv.data, std::make_pair(from, from + static_cast<size_t>(rows * width))));
      out.push_back({std::move(key), std::move(whole)});
      continue;
    }
    OrdinalData numbers(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tra::row_numbers"), static_cast<size_t>(got_rows[t]));
    Kokkos::deep_copy(numbers, Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(numbers_in.data() + at, numbers.extent(0)));
    Chunk z(chunk_shape, dtype_of<T>());  // zero outside the rows sent
    scatter_rows<T>(recv.data, at * static_cast<size_t>(width), numbers, width, z.elements<T>());
    out.push_back({std::move(key), std::move(z)});
  }
  Kokkos::fence();
  return out;
}

}  // namespace

std::vector<Tuple> broadcast(const Communicator& c, const std::vector<Tuple>& mine, int key_arity, const Shape& chunk_shape, DType dtype,
                             Moved& moved, const std::vector<int>* planned) {
  if (dtype == DType::Float32) return broadcast_as<float>(c, mine, key_arity, chunk_shape, moved, planned);
  return broadcast_as<double>(c, mine, key_arity, chunk_shape, moved, planned);
}

std::vector<Tuple> shuffle(const Communicator& c, std::vector<Tuple> mine, int key_arity, const Shape& chunk_shape, DType dtype,
                           const std::function<int(const Key&)>& site, Moved& moved, const Counts* planned) {
  if (dtype == DType::Float32) return shuffle_as<float>(c, std::move(mine), key_arity, chunk_shape, site, moved, planned);
  return shuffle_as<double>(c, std::move(mine), key_arity, chunk_shape, site, moved, planned);
}

std::vector<Tuple> shuffle_filled_rows(const Communicator& c, std::vector<Tuple> mine, int key_arity, const Shape& chunk_shape, DType dtype,
                                       const std::function<int(const Key&)>& site, Moved& moved, const Counts* planned) {
  if (dtype == DType::Float32) return shuffle_rows_as<float>(c, std::move(mine), key_arity, chunk_shape, site, moved, planned);
  return shuffle_rows_as<double>(c, std::move(mine), key_arity, chunk_shape, site, moved, planned);
}

}  // namespace tra::comm
