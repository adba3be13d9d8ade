#pragma once
// EinDecomp §8: give every vertex of an EinGraph a partitioning vector d that
// minimises the §7 cost, each statement decomposed into p kernel calls (§6).
//
//  * Tree (§8.2–8.3): when no intermediate has two consumers, the dynamic
//    program M[v, d_Z] over a topological order — the lowest cost of the
//    subgraph up to v given v's output grid d_Z — is exact; backtracking from
//    the best M of every sink gives each statement its d.
//  * ExactDag (an extension): a DAG whose shared intermediates (two or more
//    consumers) have few output grids in all is solved exactly by fixing the
//    output grid of every shared vertex — each combination in turn — which
//    cuts the DAG into trees, solving those, and keeping the best.
//  * Linearised (§8.4): otherwise, the longest path of not-yet-labelled
//    vertices is optimised alone, then the next longest, and so on. Inputs
//    that come from a vertex off the path not labelled yet are ignored, as in
//    the paper; edges to vertices labelled by earlier paths have a known grid
//    at the other end, and their re-partitioning is charged (the paper ignores
//    those too).
//  * BruteForce: every labeling; for tests.
//
// Pinned vertices (d set by the deck) have that d as their only candidate.
// Sources are boundaries: free (M = 0 for every d), or on a fixed grid.
#include <cstddef>
#include <vector>

#include "tra/decomp/costs.hpp"
#include "tra/decomp/graph.hpp"

namespace tra::decomp {

enum class Method { Tree, ExactDag, Linearised, BruteForce, Rule };
const char* method_name(Method m);

struct Plan {
  Index p = 1;
  Method method = Method::Tree;
  std::vector<Partitioning> d;  // per vertex
  std::vector<StatementCost> cost;  // per vertex, as evaluate() counts it
  double total = 0;
};

// Tree when no intermediate is shared; ExactDag when the shared ones have at
// most `exact_dag_limit` combinations of output grids; else Linearised.
Plan plan_eindecomp(const Graph& g, Index p, std::size_t exact_dag_limit = 1024);

Plan plan_exact(const Graph& g, Index p);  // Tree or ExactDag, whatever the number of combinations
Plan plan_linearised(const Graph& g, Index p);
Plan plan_brute_force(const Graph& g, Index p);

// A Plan for the given d's, costed by evaluate().
Plan costed(const Graph& g, Index p, Method m, std::vector<Partitioning> d);

}  // namespace tra::decomp
