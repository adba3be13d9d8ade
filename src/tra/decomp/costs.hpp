#pragma once
// The cost of a decomposition (EinDecomp §7): an upper bound on the number of
// floats moved, in three terms per statement. All are in floats (doubles, so
// that a partitioning that does not divide a bound still gets a number).
#include <string>
#include <utility>
#include <vector>

#include "tra/decomp/graph.hpp"

namespace tra::decomp {

// Transferring into the join: every kernel call receives one sub-tensor of
// each input, of n_X = ∏ (b/d)[ℓX; ℓXY] floats (n_Y alike), so
// cost_join = p · (n_X + n_Y). The paper's p is the number of kernel calls; for
// the viable d's of §6 that is exactly p. Here it is kernel_calls(v, d), so
// that d's with fewer or more calls are costed by what they do. A statement
// with one input pays p · n_X.
double cost_join(const Vertex& v, const Partitioning& d);
// The same with p given: the paper's Figure 2 example takes p = 8 for
// d = [4, 1, 1, 4], whose join has 16 results, and gets 8 · (16 + 16).
double cost_join(const Vertex& v, const Partitioning& d, double p);

// Transferring into the aggregation: n_agg = ∏ d[ℓagg] sub-tensors of
// n_Z = ∏ (b/d)[ℓZ] floats are reduced to one, in p / n_agg groups, each
// moving (n_agg − 1) n_Z floats: cost_agg = p / n_agg · (n_agg − 1) · n_Z.
// Zero when no aggregated label is split.
double cost_agg(const Vertex& v, const Partitioning& d);

// Re-partitioning a tensor of bound b produced on grid d_Z into the grid d_X
// its consumer needs. With n_p = ∏ b/d_Z (a producer sub-tensor), n_c = ∏ b/d_X
// (a consumer sub-tensor), n_int = ∏ min(b/d_Z, b/d_X) (what one producer
// sub-tensor gives one consumer sub-tensor) and n = ∏ b:
//   (n_c / n_int − 1) · n / n_c · (n_c + n_p)  [+ n_p · n / n_c when n_p ≠ n_int].
// (The paper prints b_X/d_Z for n_c and ∏ d_Z for n; its example — [2, 4] to
// [4, 1] on 8×8, 128 + 192 = 320 — fixes them as written here.) Zero when the
// grids are equal.
double cost_repart(const Shape& from_grid, const Shape& to_grid, const Shape& bound);

// The terms of one statement: its join, its aggregation, and the
// re-partitioning of each input into the grid its d needs.
struct StatementCost {
  double join = 0, agg = 0;
  std::vector<std::pair<std::string, double>> repart;  // input tensor, floats
  double total() const;
};

}  // namespace tra::decomp
