#pragma once
// λL(keyMapFunc, arrayMapFunc), one tuple to one; or one tuple to `arity`
// (re-chunking, tiling, a join strategy's replication).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tra/physical/chunk_fn.hpp"
#include "tra/physical/key_fn.hpp"
#include "tra/physical/ops/kind.hpp"

namespace tra::physical {

struct MapParams {
  static constexpr const char* kName = "λL";
  static constexpr Role kRole = Role::Compute;
  static constexpr bool kPlaced = false;
  static constexpr bool kOwnType = true;
  static constexpr int kInputs = 1;

  // One tuple to one: λ(keyMapFunc, arrayMapFunc); composable (R1-2, R1-4, R1-7).
  KeyFn key_map;
  ArrayFn array_map;
  double call_flops = 0;  // per tuple
  // One tuple to `arity` tuples (Tile, re-chunking, replication): not composable.
  std::optional<Expansion> expand;
  int arity = 1;
  bool replica = false;  // a join strategy's replication (stripped by the next one)
};

bool operator==(const MapParams& a, const MapParams& b);

namespace ops {
inline double call_flops(const MapParams& p) { return p.call_flops; }
void infer(MapParams& p, IaNode& n, const Context& c);
double seconds(const MapParams& p, const IaNode& n, const Rates& r, bool gemm_folds);
std::string text(const MapParams& p);
// What it does in words, for EXPLAIN and the run reports: derived from
// its parameters (and its relation's type), never kept beside them.
std::string words(const MapParams& p, const IaNode& n);
// Per site, the bytes of n's result that are its input's chunks, handed on
// without a copy (the memory estimate counts them once).
std::vector<std::int64_t> bytes_passed_through(const MapParams& p, const IaNode& n, const Context& c);
// Why n's keys, groups or placement disagree with its relation's types, or
// "" (physical/verify.cpp).
std::string typing_problem(const MapParams& p, const IaNode& n, const Context& c);
}  // namespace ops

}  // namespace tra::physical
