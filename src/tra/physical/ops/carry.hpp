#pragma once
// Carry(X)(R): a training step's loop-carried tensor X (a parameter, an
// optimizer's state), its update R = X.next brought to where the next run's
// Scans of X read it. A training run is one plan run many times; the carry
// is the one operator between two runs, and the plan holds it like any
// other, so that EXPLAIN shows it and the cost model charges it.
//
// Chunk for chunk to one Scan: each of R's tuples to the Scan's site for
// its key (nothing moves where the update ends where the read starts), or
// to every site for a Scan on every site. Where the Scans cut X into other
// chunks (`regrid`: a data-parallel plan updates W in row blocks and reads
// it whole), each of R's chunks goes to every site whose Scans read part of
// it, and no further; the next run cuts its chunks from them.
// exec/loop_carry.hpp moves the tuples.
#include <cstdint>
#include <string>
#include <vector>

#include "tra/physical/ops/kind.hpp"

namespace tra::physical {

struct CarryParams {
  static constexpr const char* kName = "Carry";
  static constexpr Role kRole = Role::Move;
  static constexpr bool kPlaced = false;  // where the Scans it feeds are
  static constexpr bool kOwnType = false;  // its input's key arity and chunk shape
  static constexpr int kInputs = 1;

  std::string tensor;  // X
  // The Scans of X it feeds, earlier in the plan: one, chunk for chunk; or,
  // regridded, every Scan of X on other chunks than X.next's.
  std::vector<int> scans;
  bool regrid = false;
};

bool operator==(const CarryParams& a, const CarryParams& b);

namespace ops {
inline double call_flops(const CarryParams&) { return 0; }
void infer(CarryParams& p, IaNode& n, const Context& c);
// What a carry of `next` to `scans` moves and its busiest site's share, all
// its time needs, without its distribution's keys or a node to hold them:
// the search costs every candidate's carries (physical/carry_plan.hpp).
struct CarryTraffic {
  Index floats = 0;
  Index busiest = 0;  // floats the busiest site sends or receives
  double paper_cost = 0;
  bool everywhere = false;  // onto every site: a broadcast
};
CarryTraffic carry_traffic(const std::vector<int>& scans, bool regrid, const IaNode& next, const Context& c);
double carry_seconds(Index busiest, bool everywhere, DType dtype, const Rates& r);
double seconds(const CarryParams& p, const IaNode& n, const Rates& r, bool gemm_folds);
std::string text(const CarryParams& p);
// What it does in words, for EXPLAIN and the run reports: derived from
// its parameters (and its relation's type), never kept beside them.
std::string words(const CarryParams& p, const IaNode& n);
// Per site, the bytes of n's result that are its input's chunks, handed on
// without a copy (the memory estimate counts them once).
std::vector<std::int64_t> bytes_passed_through(const CarryParams& p, const IaNode& n, const Context& c);
// Why n's keys, groups or placement disagree with its relation's types, or
// "" (physical/verify.cpp).
std::string typing_problem(const CarryParams& p, const IaNode& n, const Context& c);
}  // namespace ops

}  // namespace tra::physical
