#pragma once
// Starting the BLAS library behind KokkosBlas::gemm before a plan's
// operators run, where starting it costs time.
#include "tra/common/dtype.hpp"

namespace tra::kernels {

// On a GPU, cuBLAS creates its handle and loads its kernels on the first
// GEMM (43 ms measured on an H200, more than the whole of a small deck's work),
// and again on the first GEMM of each element type and transposition (float:
// 83 ms for the first "N","N", 42 ms for a first "T" after it, on an H200).
// On a host, OpenBLAS's first GEMM of a process took 0.1-0.5 ms more than
// the next (a 16x48x64 product: 104-122 us where 3 us were predicted), and
// --explain=analyze charged it to whichever operator came first. An
// executor whose plan has a GEMM calls this for its GEMMs' element type
// while it is bound, so the cost falls before its operators run, once per
// process and type.
void start_gemm_library(DType dtype);

}  // namespace tra::kernels
