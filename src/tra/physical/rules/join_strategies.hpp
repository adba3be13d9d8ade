#pragma once
// Domain-specific rules (TRA paper §5.2.2): the ways to place the work of a
// join — and of the aggregation that usually follows it — on the sites.
//
// The join's output keys span a space of "voxels" (for C = A·B, the (i, j, k)
// blocks of the 3-D iteration space). A strategy picks the key dimensions P
// the voxels are partitioned on, Part<P>, and brings each input to the sites
// of the voxels it takes part in:
//   - an input holding every dimension of P is shuffled on them;
//   - an input holding none of them is broadcast;
//   - an input holding some is replicated over the missing ones and shuffled
//     (insertDim and duplicate of §5.2.2), and the join then matches on the
//     added dimensions too.
// The aggregation after the join needs no shuffle when P holds no aggregated
// dimension (R2-4) and runs in two phases otherwise (R2-5).
//
// For C[i,k] = Σ_j A[i,j]·B[j,k] the paper's plans are instances:
//   BMM  P = {i} or {k}: one input broadcast, the other partitioned (also: the
//        other left where it is, R2-6's broadcast forms);
//   CMM  P = {j}: both partitioned on the summed dimension, partial results
//        shuffled and added;
//   RMM  P = {i, j, k}: the 3-D replication-based multiply.
// Beyond the paper: "2D" P = {i, k} (both inputs replicated, no aggregation
// shuffle: SUMMA's data placement) and the "mixed" P = {i, j} / {j, k}
// (a 2.5-D-like middle ground). All of them hold for batch labels and several
// summed labels alike.
#include <string>
#include <vector>

#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

// The strategy families, one table: each one's name (as --disable, --strategy
// and EXPLAIN write it) and whether it serves joins that feed an aggregation.
enum class Family { BMM, CMM, RMM, TwoD, Mixed, Broadcast, CoPartition, Replicate };
struct FamilyEntry {
  Family family;
  const char* name;
  bool aggregating;
};
inline constexpr FamilyEntry kFamilies[] = {
    {Family::BMM, "BMM", true},
    {Family::CMM, "CMM", true},
    {Family::RMM, "RMM", true},
    {Family::TwoD, "2D", true},
    {Family::Mixed, "mixed", true},
    {Family::Broadcast, "broadcast", false},
    {Family::CoPartition, "co-partition", false},
    {Family::Replicate, "replicate", false},
};
const char* family_name(Family f);
// Whether the family named `name` serves joins that feed an aggregation.
bool is_aggregating(const std::string& name);

struct JoinStrategy {
  std::string family;  // family_name() of one of kFamilies
  std::vector<int> P;  // voxel dimensions, in the join's natural output key; empty for the keep-in-place forms
  // The processor grid the voxels of P are placed on (sites along each
  // dimension of P, in P's order); empty for one dimension (min(extent, s)).
  ProcGrid grid;
  int keep_in_place = -1;  // 0 / 1: that input stays where it is and the other is broadcast
  std::string name() const;  // "BMM P=<0>", "BMM keep right", "RMM P=<0,1,2> on 2x2x2"
};

// The strategies that apply to the LocalJoin at `join` (dimensions with a
// frontier of 1 are left out of P: partitioning on them changes nothing).
// A P of several dimensions is tried on each processor grid that gives every
// one of them two sites or more (full_grids): for a matmul on 8 sites, RMM
// on 2x2x2 is the 3D algorithm; on 2x2x2 with 16 sites a 2.5D one would use
// 2x2x4. A P no such grid fits is not tried (it would partition some
// dimension of it on one site, which a smaller P does).
std::vector<JoinStrategy> join_strategies(const IaPlan& plan, int join);

// The strategy that partitions the join's voxels on the dimensions both
// inputs hold (its matched keys, R2-6's shuffles of both sides; a broadcast
// of the right side where none has two keys or more): valid wherever the
// inputs are.
JoinStrategy matched_dims_strategy(const IaPlan& plan, int join);

// Rewrites the join's inputs (and its keys) to `s`; any earlier strategy's
// broadcasts, shuffles and replications are undone first.
void apply_join_strategy(IaPlan& plan, int join, const JoinStrategy& s);

// A strategy moves a join's result, and with it every relation computed from
// it: an aggregation downstream that R2-4 let run in place under the old
// placement may now see its groups split over sites and leave partial
// aggregates. Such aggregations (among the inferred nodes in `order`) get
// their Table-1 shuffle back, Shuf(groupBy) in front of them, so that no
// earlier rewrite closes off a strategy; R2-4 and R2-5 settle them again.
// partial_aggregations finds them (none: nothing was left partial, and
// nothing needs taking back); regroup gives each of them its shuffle.
std::vector<int> partial_aggregations(const IaPlan& plan, const std::vector<int>& order);
void regroup(IaPlan& plan, const std::vector<int>& aggregations);

}  // namespace tra::physical
