#pragma once
// Shared by the decomp tests: the matrix product of EinDecomp §3–§7,
// Z[i,k] = sum_j X[i,j] * Y[j,k], as a vertex, and the paper's way of writing
// its d over ℓXY = [i, j, j, k].
#include <map>
#include <string>

#include "tra/decomp/graph.hpp"
#include "tra/einsum/parser.hpp"

namespace tra::decomp::testing {

inline Vertex matmul(Index i, Index j, Index k) {
  const auto e = einsum::parse_einsum("Z[i,k] = sum_j X[i,j] * Y[j,k]", SourceLoc{"test", 1, 1});
  return make_vertex(e, {{"i", i}, {"j", j}, {"k", k}});
}

// The paper's [d_i, d_j, d_j, d_k] as a d over the vertex's labels [i, k, j].
inline Partitioning paper_d(Index di, Index dj, Index dj2, Index dk) {
  (void)dj2;  // the two j entries are the same label (§6)
  return Partitioning{di, dk, dj};
}

}  // namespace tra::decomp::testing
