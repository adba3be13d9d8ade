#include "tra/exec/kernel_start.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <variant>
#include <vector>

#include "tra/comm/exchange.hpp"
#include "tra/common/allocation.hpp"
#include "tra/common/error.hpp"
#include "tra/common/kokkos_types.hpp"
#include "tra/common/timer.hpp"
#include "tra/io/generators.hpp"
#include "tra/io/hdf5/reader.hpp"
#include "tra/kernels/einsum_kernel.hpp"
#include "tra/kernels/kernel_start.hpp"
#include "tra/physical/memory_estimate.hpp"

namespace tra::exec {

using physical::IaNode;

namespace {

// On a device (chunks not in host memory) cuBLAS chooses, and loads, a
// kernel per GEMM shape: an H200 took 10-15 ms for the first GEMM of a
// shape (ffnn's 64x1024x256, chain_skewed's 32x3200x320) against 0.02-1 ms
// for the same GEMM after. A kernel whose call is at most this many flops
// (about 2 ms of an H200's dgemm) is run once on zero chunks at bind; a
// larger one pays the load inside its first call, where it is a small part
// of it, rather than doubling its work here.
constexpr double kStartFlopsMax = 1e11;

// Runs `f` after the device has finished what came before, and adds the
// seconds until the device has finished it to `into`.
template <class F>
void timed(double& into, const F& f) {
  Kokkos::fence();
  const Stopwatch clock;
  f();
  Kokkos::fence();
  into += clock.seconds();
}

// A zero chunk in memory of its own, not the chunk pool's: freed when it
// goes, not kept idle for chunks of its size.
Chunk own_zeros(const Shape& shape, DType dtype) {
  const auto n = static_cast<size_t>(volume(shape));
  if (dtype == DType::Float32) return Chunk(shape, ElementData<float>("tra::start", n));
  return Chunk(shape, ElementData<double>("tra::start", n));
}

// One call of a GEMM kernel on zero chunks of its shapes, overwriting its
// result (beta 0), as the first call of every group does. The inputs are
// the start's own; the result (and any operand permuted on the way) come
// from the chunk pool, of the sizes the operator will take from it again.
void start_gemm_shape(const kernels::EinSumKernel& k, DType dtype) {
  const Chunk x = own_zeros(k.x_shape(), dtype), y = own_zeros(k.y_shape(), dtype);
  static_cast<void>(k.apply(x, &y));
}

// The first MPI-IO file opening of a process took 5.5-5.9 ms on the VM
// where the next took 0.2-0.6 ms: reading no chunks of a source opens and
// closes it, collectively, as a Scan will. Also one element of a generator
// (one kernel whatever the generator; once per element type).
// A file that no longer opens (changed since it was checked) is left to the
// Scan, which says so with the tensor's deck location, inside the ranks'
// agreement; every rank fails alike here, or read_chunks stops them all.
void start_source(const IaNode& n, const comm::Communicator& c, std::set<DType>& generated, bool& mpi_io_started) {
  const auto& source = n.scan().source->source;
  if (const auto* g = std::get_if<model::Generator>(&source); g && generated.insert(n.type.dtype).second)
    static_cast<void>(io::generate_chunk(*g, {1}, {1}, {0}, n.type.dtype));
  if (const auto* h = std::get_if<model::Hdf5Source>(&source); h && !mpi_io_started) {
    mpi_io_started = true;
    try {
      static_cast<void>(io::hdf5::read_chunks(c, *h, n.type.chunk_shape, {}, {}, n.type.dtype));
    } catch (const UserError&) {
    }
  }
}

// A process's first exchange of each kind pays MPI's setup of it (on the
// VM at 2 ranks a first Bcast took 0.12-0.45 ms where the next of its size
// took 0.04 ms, a first Shuffle 0.05-0.45 ms; on a GPU build it also grows
// the pinned staging buffers). One of each kind and element type the plan
// moves is run at bind: a chunk per rank of its largest chunk, at most this
// many elements, so that it takes the protocol the plan's own will take
// (small messages go eagerly, large ones by another path) without moving
// much.
constexpr Index kStartExchangeMax = 1 << 16;

// One Bcast or Shuffle (each rank's chunk to the next rank) of `floats`
// elements per rank, collective over `c`.
void start_exchange(IaNode::Kind kind, DType dtype, Index floats, const comm::Communicator& c) {
  const Shape shape{floats};
  const std::vector<Tuple> mine{{Key{c.rank()}, own_zeros(shape, dtype)}};
  comm::Moved moved;
  if (kind == IaNode::Kind::Bcast) static_cast<void>(comm::broadcast(c, mine, 1, shape, dtype, moved));
  else
    static_cast<void>(comm::shuffle(
        c, mine, 1, shape, dtype, [&](const Key& k) { return static_cast<int>((k[0] + 1) % c.size()); }, moved));
}

// At most this much of the heap is paged in at bind (common/allocation.hpp),
// about 0.25 s on the VM: beyond it, the operators whose results are that
// large take long enough that their first touch is a small part of them.
constexpr std::int64_t kPageInMax = std::int64_t{1} << 30;

// A GEMM's shapes and element type: kernels of identical layers, one per
// statement, start once (a rare pair of equal shapes read in other
// transpositions leaves the second's kernel to load in its operator).
struct GemmShape {
  DType dtype;
  Shape x, y, z;
  bool operator<(const GemmShape& o) const { return std::tie(dtype, x, y, z) < std::tie(o.dtype, o.x, o.y, o.z); }
};

using Programs = std::vector<const einsum::ScalarProgram*>;

// A kernel's ⊗ where it runs as an element loop (a GEMM's or a sparse
// product's x * y runs in its library).
void add_program(const kernels::EinSumKernel& k, Programs& into) {
  if (!k.uses_gemm() && !k.sparse()) into.push_back(&k.join_program());
}

// The ⊗ programs of the element steps a chunk function runs (a Map's, or
// what a join or aggregation runs after its own kernel).
void add_programs(const physical::ArrayFn& f, Programs& into) {
  for (const physical::ArrayFn::Step& s : f.steps()) {
    if (const auto* e = std::get_if<physical::EinSumCall>(&s)) add_program(*e->kernel, into);
    else if (const auto* el = std::get_if<physical::ArrayFn::Elements>(&s)) into.push_back(&el->program);
  }
}

// Every ⊗ program node n runs as an element loop.
void add_programs(const IaNode& n, Programs& into) {
  if (n.kind() == IaNode::Kind::LocalJoin) {
    add_program(*n.join().kernel.call.kernel, into);
    add_programs(n.join().kernel.then, into);
  } else if (n.kind() == IaNode::Kind::LocalMap) {
    add_programs(n.map().array_map, into);
  } else if (n.kind() == IaNode::Kind::LocalAgg) {
    add_programs(n.agg().kernel.finish, into);
  }
}

}  // namespace

std::string StartTimes::text() const {
  char line[256];
  std::snprintf(line, sizeof line,
                "%.4f s (BLAS %.4f s, %d GEMM shape(s) %.4f s, sparse %.4f s, loop kernels %.4f s, files and generators %.4f s, exchanges %.4f s, "
                "memory %.4f s)",
                total(), gemm_library, shapes, gemm_shapes, sparse, loops, files, exchanges, memory);
  return line;
}

StartTimes start_kernels(const physical::IaPlan& plan, const comm::Communicator& c) {
  StartTimes t;
  // Chunks in host memory: this rank's estimated peak paged in, once (a
  // device's chunk memory comes from the chunk pool instead).
  if (kHostChunks && freed_memory_is_kept())
    timed(t.memory, [&] {
      const std::vector<std::int64_t> peaks = physical::estimate_memory(plan).site_peak_bytes;
      const std::int64_t mine = static_cast<size_t>(c.rank()) < peaks.size() ? peaks[static_cast<size_t>(c.rank())] : 0;
      page_in_heap(static_cast<size_t>(std::min(mine, kPageInMax)));
    });
  std::set<DType> dtypes, generated;
  std::map<DType, Programs> programs;  // the element loops' ⊗, by element type
  std::set<GemmShape> started;
  bool mpi_io_started = false;
  std::map<std::pair<IaNode::Kind, DType>, Index> exchanged;  // the largest chunk of each
  for (const IaNode& n : plan.nodes) {
    dtypes.insert(n.type.dtype);
    // (A Shuffle of a relation held everywhere calls no MPI: each site keeps its own.)
    const bool moves = n.kind() == IaNode::Kind::Bcast || (n.kind() == IaNode::Kind::Shuffle && !plan.node(n.inputs[0]).dist.everywhere);
    if (moves) {
      Index& largest = exchanged[{n.kind(), n.type.dtype}];
      largest = std::max(largest, std::min(volume(n.type.chunk_shape), kStartExchangeMax));
    }
    if (n.kind() == IaNode::Kind::Scan) timed(t.files, [&] { start_source(n, c, generated, mpi_io_started); });
    add_programs(n, programs[n.type.dtype]);
    if (n.kind() != IaNode::Kind::LocalJoin) continue;
    const kernels::EinSumKernel& k = *n.join().kernel.call.kernel;
    if (k.sparse()) timed(t.sparse, [&] { kernels::start_sparse_library(n.type.dtype, k.sparse_columns()); });
    if (!k.uses_gemm()) continue;
    timed(t.gemm_library, [&] { kernels::start_gemm_library(n.type.dtype); });
    if (!kHostChunks && k.flops() <= kStartFlopsMax && started.insert({n.type.dtype, k.x_shape(), k.y_shape(), k.z_shape()}).second) {
      timed(t.gemm_shapes, [&] { start_gemm_shape(k, n.type.dtype); });
      ++t.shapes;
    }
  }
  timed(t.loops, [&] {
    for (DType d : dtypes) kernels::start_loop_kernels(d);
    for (const auto& [dtype, ps] : programs)
      for (const einsum::ScalarProgram* p : ps) kernels::start_element_program(*p, dtype);  // once per form and type
  });
  if (c.size() > 1)  // the same plan on every rank: the same exchanges, in the same order
    timed(t.exchanges, [&] {
      for (const auto& [what, floats] : exchanged) start_exchange(what.first, what.second, floats, c);
    });
  return t;
}

}  // namespace tra::exec
