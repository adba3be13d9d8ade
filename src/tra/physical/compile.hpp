#pragma once
// TRA → IA (TRA paper §5.1, Table 1), with the simplest sound choices:
//
//   Input            Scan, each tuple on site Part<all dims>
//   Join             LocalJoin(Bcast(smaller side), other side)      Table 1 broadcasts
//                    the left input; broadcasting the smaller one is the same rule
//                    with the inputs' roles swapped
//   Aggregate        LocalAgg(Shuffle(groupBy)(R)) — with R2-4 applied when R is
//                    already partitioned on a subset of groupBy, and the two-phase
//                    form LocalAgg(Shuffle(LocalAgg(R))) otherwise (R2-5)
//   ReKey/Transform  LocalMap(keyFunc, idOp) / LocalMap(idOp, transformFunc)
//   Filter           LocalFilter
//   Tile             LocalMap(keyTileOp, arrayTileOp), arity m
//   Concat           LocalAgg(<keyDim>^c, arrayConcatOp)(Shuffle(<keyDim>^c)(R))
//   Retile           Tile then Concat to the new grid, as one LocalMap, Shuffle, LocalAgg
#include "tra/logical/tra_plan.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

IaPlan compile(const logical::TraPlan& tra, int nsites);

}  // namespace tra::physical
