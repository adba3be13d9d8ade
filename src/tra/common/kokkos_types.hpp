#pragma once
// One header of Kokkos aliases, so that the scalar type, the execution space and
// the memory space are chosen in exactly one place. A CUDA build of Kokkos makes
// ExecSpace the device; chunk data then lives in device memory and host code
// reaches it through mirrors.
#include <Kokkos_Core.hpp>

namespace tra {

using Scalar = double;
using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;

// Whether host code can read chunk memory directly (a host build), or chunks
// live on a device and host code reaches them through copies.
inline constexpr bool kHostChunks = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;

// Elements of type T (double or float), flat, in the execution space's memory.
template <class T>
using ElementData = Kokkos::View<T*, Kokkos::LayoutRight, MemSpace>;

// A chunk's elements, flat, row-major over the chunk shape.
using ChunkData = ElementData<Scalar>;
using HostChunkData = ChunkData::HostMirror;

// Ordinals (row numbers, CSR offsets and columns: int, KokkosSparse's
// ordinals) in the execution space's memory.
using OrdinalData = Kokkos::View<int*, Kokkos::LayoutRight, MemSpace>;

// Unmanaged 2-D views over chunk memory, as KokkosBlas::gemm takes them.
using MatrixView = Kokkos::View<Scalar**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using ConstMatrixView = Kokkos::View<const Scalar**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

using RangePolicy = Kokkos::RangePolicy<ExecSpace>;

}  // namespace tra
