#pragma once
// A training step's loop-carried tensors in its plan: the Carry operators
// (ops/carry.hpp) that hand each X.next to the next run's Scans of X, and
// where each chunk goes (exec/loop_carry.hpp moves them).
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tra/physical/calibration.hpp"
#include "tra/physical/cost_model.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

// Each key's site (the first, for a key on several).
std::map<Key, int> sites_of(const Distribution& d);

// For each of `next`'s chunks, the ranks whose tuples of those `scans` whose
// chunk shapes differ from next's overlap it (every rank for a read on every
// site); empty when no scan's chunk shape differs.
std::map<Key, std::set<int>> regrid_sites(const IaNode& next, const std::vector<const IaNode*>& scans, int nranks);

// A training step's loop-carried tensors: X -> the place of X.next among
// its plan's roots (which the optimizer keeps in place).
using CarriedRoots = std::map<std::string, int>;

// The Carry operators a training step's plan ends with, not inferred: for
// each loop-carried tensor X, one per Scan of X among `live` (the plan's
// nodes its roots need) on X.next's chunks, and one for all of them on
// other chunks (regridded).
std::vector<IaNode> carries(const IaPlan& plan, const std::vector<int>& live, const CarriedRoots& carried);

// The search costs every candidate with the Carry operators it would end
// with, so that they are weighed like any other operator: their share of
// its cost, added after the plan's own nodes in `live` (the nodes its roots
// need, in order: the same terms in the same order as in the plan they are
// appended to). Each is inferred for its traffic alone.
void add_carry_costs(PlanCost& c, const IaPlan& plan, const std::vector<int>& live, const CarriedRoots& carried, const Rates& rates);

// The nodes those carries' costs read: each X.next, and the Scans of each X
// among `live`.
std::vector<int> carry_cost_inputs(const IaPlan& plan, const std::vector<int>& live, const CarriedRoots& carried);

// The chosen plan with its Carry operators appended, each a root, inferred;
// returned by X.
std::map<std::string, std::vector<int>> add_carries(IaPlan& plan, const CarriedRoots& carried);

}  // namespace tra::physical
