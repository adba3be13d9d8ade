#pragma once
// ⋈L(keysL, keysR, projOp): each site joins the tuples it holds of both inputs.
#include <cstdint>
#include <string>
#include <vector>

#include "tra/physical/chunk_fn.hpp"
#include "tra/physical/key_fn.hpp"
#include "tra/physical/ops/kind.hpp"

namespace tra::physical {

struct JoinParams {
  static constexpr const char* kName = "⋈L";
  static constexpr Role kRole = Role::Compute;
  static constexpr bool kPlaced = false;
  static constexpr bool kOwnType = true;
  static constexpr int kInputs = 2;

  std::vector<int> keys_left, keys_right;
  // projOp. Its kernel may add its product in place (a GEMM with beta = 1,
  // kernel.adds_into()): a sum aggregation the join streams into
  // (streamed_into) then accumulates its groups inside the GEMM. Its ⊗ may
  // run on aligned chunks of any shape when elementwise (kernel.zippable()):
  // R1-7's distributive form runs it on the chunks a selecting map leaves.
  JoinKernel kernel;
  double call_flops = 0;  // per kernel call
  bool gemm = false;  // the kernel is a GEMM (for the time estimate)
  KeyFn out_key;  // applied to the natural-join key (R1-7, strategies)
  // The join as first compiled, before a join strategy extended its keys;
  // kept once a strategy was applied (has_base), since an outer product's
  // join keys are empty.
  bool has_base = false;
  std::vector<int> base_keys_left, base_keys_right;
  KeyFn base_out_key;
};

bool operator==(const JoinParams& a, const JoinParams& b);

namespace ops {
inline double call_flops(const JoinParams& p) { return p.call_flops; }
void infer(JoinParams& p, IaNode& n, const Context& c);
double seconds(const JoinParams& p, const IaNode& n, const Rates& r, bool gemm_folds);
std::string text(const JoinParams& p);
// What it does in words, for EXPLAIN and the run reports: derived from
// its parameters (and its relation's type), never kept beside them.
std::string words(const JoinParams& p, const IaNode& n);
// Per site, the bytes of n's result that are its input's chunks, handed on
// without a copy (the memory estimate counts them once).
std::vector<std::int64_t> bytes_passed_through(const JoinParams& p, const IaNode& n, const Context& c);
// Why n's keys, groups or placement disagree with its relation's types, or
// "" (physical/verify.cpp).
std::string typing_problem(const JoinParams& p, const IaNode& n, const Context& c);
}  // namespace ops

}  // namespace tra::physical
