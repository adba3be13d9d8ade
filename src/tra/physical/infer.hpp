#pragma once
// Type, frontier and distribution inference for IA plans (TRA paper §5.3),
// bottom-up from the Scans. Under uniqueness and continuity the key set of
// every relation is known exactly, so the frontier is computed by brute force
// (1 + the largest key in every dimension, as §5.3 suggests for filters and
// key maps) and the site of every tuple follows from the deterministic
// placements. From them come the exact floats moved, the paper's cost and the
// kernel work per site.
//
// infer() also checks that every node computes the relation it should: a
// local join must meet every matching pair exactly once, and a partial
// aggregate (a key on several sites) may only feed a Shuffle or a LocalAgg.
// Rules whose preconditions hold never produce an invalid plan; the check is
// the optimizer's safety net and the tests' oracle.
#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

void infer(IaPlan& plan);

// The same for the nodes marked stale and everything downstream of them; the
// others keep their derived fields. The optimizer infers thousands of
// candidate plans that differ from their parent in a few nodes.
void infer_stale(IaPlan& plan);

// Empty when every node needed for the roots computes its relation correctly;
// otherwise the first problem, "p<i>: why".
std::string invalid_reason(const IaPlan& plan);

// Whether every group of `group_by` keys sits on one site (R2-4's precondition,
// checked exactly).
bool grouped_on_one_site(const Distribution& d, const std::vector<int>& group_by);

}  // namespace tra::physical
