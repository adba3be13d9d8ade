#pragma once
// What the planners search over (EinDecomp §8): for every vertex its candidate
// d's (the viable ones of §6, or the deck's d when pinned), their join and
// aggregation costs, the distinct grids they put on the output and on each
// input, and the re-partitioning costs between a producer's output grids and
// a consumer's input grids — computed once, so that the dynamic program only
// adds and compares numbers.
#include <vector>

#include "tra/decomp/costs.hpp"
#include "tra/decomp/graph.hpp"

namespace tra::decomp {

struct Candidates {
  std::vector<Partitioning> d;
  std::vector<double> local;           // cost_join + cost_agg of each candidate
  std::vector<Shape> outs;             // distinct output grids d[ℓZ; ℓXY]
  std::vector<int> out_of;             // candidate -> index in outs
  std::vector<std::vector<Shape>> ins; // per input: distinct grids d[ℓX; ℓXY]
  std::vector<std::vector<int>> in_of; // per input: candidate -> index in ins[k]
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
