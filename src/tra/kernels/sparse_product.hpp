#pragma once
// The product of a sparse block and a dense chunk (issue 30): what a join of
// a sparse relation's tuple with a dense one computes for
// M[v,h] = sum_u A[v,u] * H[u,h], and, with the block transposed, for the
// gradient H.grad[u,h] = sum_v A[v,u] * M.grad[v,h]. It runs as
// KokkosSparse::spmv on a multivector (cuSPARSE where Kokkos Kernels has it
// as a TPL): each output row is summed in the block's column order.
#include "tra/core/chunk.hpp"
#include "tra/core/sparse_block.hpp"

namespace tra::kernels {

// out = beta * out + op(a) * x, with op(a) the block (transposed: false) or
// its transpose (read from its by-column CSR): op(a) is m x k, x a dense
// k x n chunk, out a dense m x n one, all of the block's element type.
// beta 0 overwrites out; 1 adds into it (a sum aggregation streaming its
// groups into one accumulator).
void sparse_product_into(const SparseBlock& a, bool transposed, const Chunk& x, double beta, Chunk& out);

// op(a) * x in a new chunk.
Chunk sparse_product(const SparseBlock& a, bool transposed, const Chunk& x);

// Whether this build has the sparse product: Kokkos Kernels installed with
// its sparse component (Debian's has it; a BLAS-only install has not, and
// sparse_product_into then throws a UserError saying how to build it).
bool sparse_product_built();

// The flops of one product: a multiply and an add per stored entry and column of x.
inline double sparse_product_flops(const SparseBlock& a, Index x_cols) { return 2.0 * static_cast<double>(a.stored()) * static_cast<double>(x_cols); }

}  // namespace tra::kernels
