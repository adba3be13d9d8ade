#pragma once
// TRA → IA exactly as Table 1 of the TRA paper (§5.1): the initial plan that
// the optimizer (optimizer.hpp) then rewrites.
//
//   Input            Scan, each tuple read on site Part<all dims>
//   Join             LocalJoin(Bcast(left), right)
//   Aggregate        LocalAgg(Shuffle(groupBy)(R))
//   ReKey/Transform  LocalMap(keyFunc, idOp) / LocalMap(idOp, transformFunc)
//   Filter           LocalFilter
//   Tile             LocalMap(keyTileOp, arrayTileOp), arity m
//   Concat           LocalAgg(<keyDim>^c, arrayConcatOp)(Shuffle(<keyDim>^c)(R))
//   Retile           Tile then Concat to the new grid: LocalMap, Shuffle, LocalAgg
//
// The result is inferred (types, distributions, costs) and its roots are
// every TRA node's relation; callers narrow the roots to what they keep.
#include "tra/logical/tra_plan.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

// Where a sparse relation's blocks are read (issue 30). Read on every site
// (Table 1's broadcast of a join's left input, done by the reader), a join
// with it runs where its dense operand is: no dense data moves, but every
// rank holds every block. Spread over the sites (Part on its keys), a join
// with it broadcasts its dense operand and runs where the blocks are: each
// rank holds its share of the stored entries, so that a graph too large for
// one rank's memory trains on more ranks. Plan choice compiles both where
// they differ (app/plan_deck.cpp) and weighs them by time and memory per
// rank.
enum class SparseBlocks {
  Everywhere,  // every sparse relation read on every site
  Spread,  // one in more than one block spread; one in a single block read everywhere
  ReadOnce,  // every one spread, a single block on one site (scan-all disabled: nothing read twice)
};

IaPlan compile(const logical::TraPlan& tra, int nsites, SparseBlocks sparse = SparseBlocks::Everywhere);

// Whether `tra` holds a sparse relation in more than one block: the two
// SparseBlocks give different plans.
bool has_spreadable_sparse(const logical::TraPlan& tra);

}  // namespace tra::physical
