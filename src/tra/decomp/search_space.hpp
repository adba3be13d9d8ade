#pragma once
// What the planners search over (EinDecomp §8): for every vertex its candidate
// d's (the viable ones of §6, or the deck's d when pinned), their join and
// aggregation costs, the distinct grids they put on the output and on each
// input, and the re-partitioning costs between a producer's output grids and
// a consumer's input grids — computed once, so that the dynamic program only
// adds and compares numbers.
#include <limits>
#include <vector>

#include "tra/decomp/costs.hpp"
#include "tra/decomp/graph.hpp"

namespace tra::decomp {

// What the planners minimise: the §7 total, and among labelings of equal
// total the one whose aggregations and re-partitionings move less. Those
// floats move in any IA plan; the join's are an upper bound that placement
// often avoids (an input read where its kernel calls run), so of two
// labelings the paper's model cannot tell apart, this one moves less when run.
// Totals are sums of whole float counts, exact in a double, so ties are exact.
struct Cost {
  double total = 0;
  double moved = 0;  // the cost_agg and cost_repart part of total

  static Cost infinite() { return {std::numeric_limits<double>::infinity(), 0}; }
  static Cost moving(double floats) { return {floats, floats}; }
  Cost operator+(const Cost& o) const { return {total + o.total, moved + o.moved}; }
  Cost& operator+=(const Cost& o) { return *this = *this + o; }
  bool operator<(const Cost& o) const { return total < o.total || (total == o.total && moved < o.moved); }
};

struct Candidates {
  std::vector<Partitioning> d;
  std::vector<Cost> local;  // cost_join + cost_agg of each candidate (moved: cost_agg)
  std::vector<Shape> outs;  // distinct output grids d[ℓZ; ℓXY]
  std::vector<int> out_of;  // candidate -> index in outs
  std::vector<std::vector<Shape>> ins;  // per input: distinct grids d[ℓX; ℓXY]
  std::vector<std::vector<int>> in_of;  // per input: candidate -> index in ins[k]
  // Per input: repart[k][o][g] = cost_repart from the producer's outs[o] (or,
  // for a boundary on a fixed grid, from that grid: o = 0) into ins[k][g].
  // Empty for a boundary whose partitioning is free.
  std::vector<std::vector<std::vector<double>>> repart;
};

struct SearchSpace {
  SearchSpace(const Graph& g, Index p);
  const Graph& graph;
  Index p;
  std::vector<Candidates> vertex;
};

// The §7 cost of a complete labeling: per vertex, cost_join + cost_agg + the
// re-partitioning of each input from its producer's output grid (or fixed
// boundary grid). Works for any d's, viable or not.
std::vector<StatementCost> evaluate(const Graph& g, const std::vector<Partitioning>& d);
double total_cost(const std::vector<StatementCost>& costs);

}  // namespace tra::decomp
