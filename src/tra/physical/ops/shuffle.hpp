#pragma once
// Shuf(dims)(R): every tuple to the site its key's dims give on the grid.
#include <cstdint>
#include <string>
#include <vector>

#include "tra/core/placement.hpp"
#include "tra/physical/ops/kind.hpp"

namespace tra::physical {

struct ShuffleParams {
  static constexpr const char* kName = "Shuf";
  static constexpr Role kRole = Role::Move;
  static constexpr bool kPlaced = true;
  static constexpr bool kOwnType = false;
  static constexpr int kInputs = 1;

  Placement placement;  // Part<dims>
  Shape site_grid;  // as ScanParams::site_grid
};

bool operator==(const ShuffleParams& a, const ShuffleParams& b);

namespace ops {
inline double call_flops(const ShuffleParams&) { return 0; }
void infer(ShuffleParams& p, IaNode& n, const Context& c);
double seconds(const ShuffleParams& p, const IaNode& n, const Rates& r, bool gemm_folds);
std::string text(const ShuffleParams& p);
// What it does in words, for EXPLAIN and the run reports: derived from
// its parameters (and its relation's type), never kept beside them.
std::string words(const ShuffleParams& p, const IaNode& n);
// Per site, the bytes of n's result that are its input's chunks, handed on
// without a copy (the memory estimate counts them once).
std::vector<std::int64_t> bytes_passed_through(const ShuffleParams& p, const IaNode& n, const Context& c);
// Why n's keys, groups or placement disagree with its relation's types, or
// "" (physical/verify.cpp).
std::string typing_problem(const ShuffleParams& p, const IaNode& n, const Context& c);
// A shuffle of filled rows (its input's Distribution::filled_rows): per
// site, the bytes of the rows it sends and of those it receives, which it
// holds in buffers beside its input and its result while it runs
// (comm::shuffle_filled_rows); empty for a shuffle of whole chunks.
std::vector<std::int64_t> filled_rows_buffer_bytes(const IaNode& n, const Context& c);
}  // namespace ops

}  // namespace tra::physical
