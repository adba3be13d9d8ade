#pragma once
// σL(boolFunc): each site keeps the tuples whose key passes.
#include <cstdint>
#include <string>
#include <vector>

#include "tra/physical/key_fn.hpp"
#include "tra/physical/ops/kind.hpp"

namespace tra::physical {

struct FilterParams {
  static constexpr const char* kName = "σL";
  static constexpr Role kRole = Role::Compute;
  static constexpr bool kPlaced = false;
  static constexpr bool kOwnType = false;
  static constexpr int kInputs = 1;

  KeyPredicate predicate;
};

bool operator==(const FilterParams& a, const FilterParams& b);

namespace ops {
inline double call_flops(const FilterParams&) { return 0; }
void infer(FilterParams& p, IaNode& n, const Context& c);
double seconds(const FilterParams& p, const IaNode& n, const Rates& r, bool gemm_folds);
std::string text(const FilterParams& p);
// What it does in words, for EXPLAIN and the run reports: derived from
// its parameters (and its relation's type), never kept beside them.
std::string words(const FilterParams& p, const IaNode& n);
// Per site, the bytes of n's result that are its input's chunks, handed on
// without a copy (the memory estimate counts them once).
std::vector<std::int64_t> bytes_passed_through(const FilterParams& p, const IaNode& n, const Context& c);
// Why n's keys, groups or placement disagree with its relation's types, or
// "" (physical/verify.cpp).
std::string typing_problem(const FilterParams& p, const IaNode& n, const Context& c);
}  // namespace ops

}  // namespace tra::physical
