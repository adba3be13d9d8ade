#include "tra/exec/kernel_start.hpp"

#include <set>
#include <variant>

#include "tra/common/kokkos_types.hpp"
#include "tra/common/timer.hpp"
#include "tra/io/generators.hpp"
#include "tra/io/hdf5/reader.hpp"
#include "tra/kernels/einsum_kernel.hpp"
#include "tra/kernels/kernel_start.hpp"

namespace tra::exec {

using physical::IaNode;

namespace {

// On a device (chunks not in host memory) cuBLAS chooses, and loads, a kernel per GEMM shape: an H200
// took 10-15 ms for the first GEMM of a shape (ffnn's 64x1024x256,
// chain_skewed's 32x3200x320) against 0.02-1 ms for the same GEMM after.
// A kernel whose call is at most this many flops (about 2 ms of an H200's
// dgemm) is run once on zero chunks at bind; a larger one pays the load
// inside its first call, where it is a small part of it, rather than
// doubling its work here.
constexpr double kStartFlopsMax = 1e11;

// One call of a GEMM kernel on zero chunks of its shapes, with beta 0 and,
// where it adds into its output, beta 1.
void start_gemm_shape(const kernels::EinSumKernel& k, DType dtype) {
  const Chunk x(k.x_shape(), dtype), y(k.y_shape(), dtype);
  Chunk z = k.apply(x, &y);
  if (k.adds_into()) k.apply_add(x, y, z);
}

}  // namespace

double start_kernels(const physical::IaPlan& plan, const comm::Communicator& c) {
  const Stopwatch clock;
  std::set<DType> dtypes;
  std::set<const kernels::EinSumKernel*> started;
  bool mpi_io_started = false;
  for (const IaNode& n : plan.nodes) {
    dtypes.insert(n.type.dtype);
    const auto* source = n.kind() == IaNode::Kind::Scan ? &n.scan().source->source : nullptr;
    if (source && std::holds_alternative<model::Generator>(*source))
      static_cast<void>(io::generate_chunk(std::get<model::Generator>(*source), {1}, {1}, {0}, n.type.dtype));
    // A process's first file opened through MPI-IO took 5.5-5.9 ms on the
    // VM where the next took 0.2-0.6 ms: reading no chunks of the first
    // source opens and closes it, collectively, as a Scan will.
    if (source && std::holds_alternative<model::Hdf5Source>(*source) && !mpi_io_started) {
      static_cast<void>(io::hdf5::read_chunks(c, std::get<model::Hdf5Source>(*source), n.type.chunk_shape, {}, {}, n.type.dtype));
      mpi_io_started = true;
    }
    if (n.kind() != IaNode::Kind::LocalJoin) continue;
    const kernels::EinSumKernel& k = *n.join().kernel.call.kernel;
    if (k.sparse()) kernels::start_sparse_library(n.type.dtype);
    if (!k.uses_gemm()) continue;
    kernels::start_gemm_library(n.type.dtype);
    if (!kHostChunks && k.flops() <= kStartFlopsMax && started.insert(&k).second) start_gemm_shape(k, n.type.dtype);
  }
  for (DType t : dtypes) kernels::start_loop_kernels(t);
  Kokkos::fence();
  return clock.seconds();
}

}  // namespace tra::exec
