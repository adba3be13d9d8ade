#pragma once
// Scan(R): an input read (or generated) where its placement says, Part<dims>
// on a processor grid or All (on every site).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tra/core/placement.hpp"
#include "tra/model/workflow.hpp"
#include "tra/physical/ops/kind.hpp"

namespace tra::physical {

struct ScanParams {
  static constexpr const char* kName = "Scan";
  static constexpr Role kRole = Role::Read;
  static constexpr bool kPlaced = true;  // its own placement says where its tuples are
  static constexpr bool kOwnType = true;  // its key arity and chunk shape are its out_type's
  static constexpr int kInputs = 0;

  std::optional<model::TensorDecl> source;  // the deck's declaration (a copy: plans outlive decks)
  Placement placement;  // where it is read: Part<dims> or All
  // Under Part<dims>: the extents that number the sites (the default grid is
  // chosen for them). Fixed when the node is made (or first inferred), so
  // that both sides of a join agree on it even after a filter shrank one
  // side's frontier.
  Shape site_grid;
};

bool operator==(const ScanParams& a, const ScanParams& b);

namespace ops {
inline double call_flops(const ScanParams&) { return 0; }
void infer(ScanParams& p, IaNode& n, const Context& c);
double seconds(const ScanParams& p, const IaNode& n, const Rates& r, bool gemm_folds);
std::string text(const ScanParams& p);
// What it does in words, for EXPLAIN and the run reports: derived from
// its parameters (and its relation's type), never kept beside them.
std::string words(const ScanParams& p, const IaNode& n);
// Per site, the bytes of n's result that are its input's chunks, handed on
// without a copy (the memory estimate counts them once).
std::vector<std::int64_t> bytes_passed_through(const ScanParams& p, const IaNode& n, const Context& c);
// Why n's keys, groups or placement disagree with its relation's types, or
// "" (physical/verify.cpp).
std::string typing_problem(const ScanParams& p, const IaNode& n, const Context& c);
}  // namespace ops

}  // namespace tra::physical
