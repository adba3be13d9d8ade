#pragma once
// What handing the loop-carried tensors from one run of a training step to
// the next moves, read off the plan (exec/loop_carry.hpp moves them): the
// planner charges it when it compares labelings (app/plan_deck), and the
// training loop takes from here where each chunk goes.
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

// Each key's site (the first, for a key on several).
std::map<Key, int> sites_of(const Distribution& d);

// Floats moved (all ranks together) to bring `next`'s tuples to `scan`'s
// placement; none when the chunk shapes differ (carried another way).
std::optional<Index> carry_floats(const IaNode& next, const IaNode& scan, int nranks);

// For each of `next`'s chunks, the ranks whose tuples of those `scans` whose
// chunk shapes differ from next's overlap it (every rank for a read on every
// site); empty when no scan's chunk shape differs.
std::map<Key, std::set<int>> regrid_sites(const IaNode& next, const std::vector<const IaNode*>& scans, int nranks);

// Floats moved (all ranks together) to bring `next`'s chunks to `sites`.
Index regrid_floats(const IaNode& next, const std::map<Key, std::set<int>>& sites);

}  // namespace tra::physical
