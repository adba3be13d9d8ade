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

IaPlan compile(const logical::TraPlan& tra, int nsites);

}  // namespace tra::physical
