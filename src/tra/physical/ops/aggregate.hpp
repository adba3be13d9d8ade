#pragma once
// ΣL(groupBy, aggOp): each site reduces the groups of the tuples it holds.
#include <cstdint>
#include <string>
#include <vector>

#include "tra/physical/chunk_fn.hpp"
#include "tra/physical/ops/kind.hpp"

namespace tra::physical {

struct AggParams {
  static constexpr const char* kName = "ΣL";
  static constexpr Role kRole = Role::Compute;
  static constexpr bool kPlaced = false;
  static constexpr bool kOwnType = true;
  static constexpr int kInputs = 1;

  std::vector<int> group_by;
  // aggOp: a reduction of the group and then the maps R1-4 composed into it.
  // One that folds members element-wise (kernel.fold() not None) can fold
  // them one at a time as they are made.
  AggKernel kernel;
  double call_flops = 0;  // per group
  bool decomposable = false;  // ⊕ may run in two phases (R2-5)
  // Which of R2-5's phases it is: the whole aggregation, the partial one on
  // the sites that hold the members, or the final one of the partials.
  enum class Phase { Whole, Partial, Final };
  Phase phase = Phase::Whole;
};

bool operator==(const AggParams& a, const AggParams& b);

namespace ops {
inline double call_flops(const AggParams& p) { return p.call_flops; }
void infer(AggParams& p, IaNode& n, const Context& c);
// `gemm_folds`: its join adds the members in its GEMM (folds_in_gemm).
double seconds(const AggParams& p, const IaNode& n, const Rates& r, bool gemm_folds);
std::string text(const AggParams& p);
// What it does in words, for EXPLAIN and the run reports: derived from
// its parameters (and its relation's type), never kept beside them.
std::string words(const AggParams& p, const IaNode& n);
// Per site, the bytes of n's result that are its input's chunks, handed on
// without a copy (the memory estimate counts them once).
std::vector<std::int64_t> bytes_passed_through(const AggParams& p, const IaNode& n, const Context& c);
// Why n's keys, groups or placement disagree with its relation's types, or
// "" (physical/verify.cpp).
std::string typing_problem(const AggParams& p, const IaNode& n, const Context& c);
}  // namespace ops

}  // namespace tra::physical
