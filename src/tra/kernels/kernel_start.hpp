#pragma once
// Starting the code a plan's kernels run (the BLAS and sparse libraries
// behind Kokkos Kernels, the engine's own loop kernels) while the plan is
// bound, before its operators run and are timed. Each start runs once per
// process and element type.
#include "tra/common/dtype.hpp"
#include "tra/core/index_vector.hpp"
#include "tra/einsum/scalar_program.hpp"

namespace tra::kernels {

// On a GPU, cuBLAS creates its handle and loads its kernels on the first
// GEMM (43 ms measured on an H200, more than the whole of a small deck's work),
// and again on the first GEMM of each element type and transposition (float:
// 83 ms for the first "N","N", 42 ms for a first "T" after it, on an H200).
// On a host, OpenBLAS's first GEMM of a process took 0.1-0.5 ms more than
// the next (a 16x48x64 product: 104-122 us where 3 us were predicted), and
// --explain=analyze charged it to whichever operator came first. This runs
// one small GEMM of `dtype` in every transposition.
void start_gemm_library(DType dtype);

// The same for the sparse product (cuSPARSE where Kokkos Kernels calls it)
// of a dense operand of `columns` columns, both ways: a deck's first one
// took 20-23 ms on an H200, its second 0.13 ms, and one start with a
// single column left the first 8-column product at 20 ms (Kokkos Kernels
// takes another path for one column). Once per type and width; nothing
// where the sparse product is not built.
void start_sparse_library(DType dtype, Index columns);

// A GPU process loads each of its own kernels on its first launch too (CUDA
// loads them lazily), and Kokkos sizes that kernel's launches then: on an
// H200 the first loop kernel of a deck took 0.4-0.9 ms where the same kernel
// took 0.02-0.05 ms afterwards. This launches every loop kernel of kernels/
// once, on chunks of a few elements; on a host it costs microseconds.
void start_loop_kernels(DType dtype);

// The same for a program with a compiled form (kernels/element_evaluators.hpp):
// each form is a kernel of its own on a device, loaded on its first launch.
// Once per form and element type; nothing for a program the interpreter runs.
void start_element_program(const einsum::ScalarProgram& p, DType dtype);

}  // namespace tra::kernels
