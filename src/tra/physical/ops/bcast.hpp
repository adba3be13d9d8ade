#pragma once
// Bcast(R): every tuple to every site.
#include <cstdint>
#include <string>
#include <vector>

#include "tra/physical/ops/kind.hpp"

namespace tra::physical {

struct BcastParams {
  static constexpr const char* kName = "Bcast";
  static constexpr Role kRole = Role::Move;
  static constexpr bool kPlaced = false;
  static constexpr bool kOwnType = false;  // its input's key arity and chunk shape
  static constexpr int kInputs = 1;
};

bool operator==(const BcastParams& a, const BcastParams& b);

namespace ops {
inline double call_flops(const BcastParams&) { return 0; }
void infer(BcastParams& p, IaNode& n, const Context& c);
double seconds(const BcastParams& p, const IaNode& n, const Rates& r, bool gemm_folds);
std::string text(const BcastParams& p);
// What it does in words, for EXPLAIN and the run reports: derived from
// its parameters (and its relation's type), never kept beside them.
std::string words(const BcastParams& p, const IaNode& n);
// Per site, the bytes of n's result that are its input's chunks, handed on
// without a copy (the memory estimate counts them once).
std::vector<std::int64_t> bytes_passed_through(const BcastParams& p, const IaNode& n, const Context& c);
// Why n's keys, groups or placement disagree with its relation's types, or
// "" (physical/verify.cpp).
std::string typing_problem(const BcastParams& p, const IaNode& n, const Context& c);
}  // namespace ops

}  // namespace tra::physical
