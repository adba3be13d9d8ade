#pragma once
// Σ(g, ⊕)(⋈(kl, kr, op)(Rl, Rr)) on one site without materializing the join.
//
// Run apart, a LocalJoin makes every pair's chunk (for a matmul, every
// partial product: as much memory as the inputs times the number of blocks
// each contraction is split in) and the LocalAgg then adds them in a separate,
// memory-bound pass. Streamed, each chunk is folded into its group's
// accumulator as soon as it is made, and when op is a GEMM and ⊕ is a sum the
// GEMM adds into the accumulator itself (beta = 1), so the fold costs nothing
// of its own. Members are folded in the order Σ would fold them (by key), so
// without a GEMM the result is the same to the last bit.
#include "tra/exec/operator_progress.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::exec {

// `join` and `agg` are the plan's nodes (streamed_into(plan)[join] == agg);
// `left`, `right` the join's inputs on this site; `label` names the
// operator in progress lines (exec/operator_progress.hpp).
std::vector<Tuple> join_aggregate(const std::vector<Tuple>& left, const std::vector<Tuple>& right, const physical::IaNode& join,
                                  const physical::IaNode& agg, const std::string& label = "");

}  // namespace tra::exec
