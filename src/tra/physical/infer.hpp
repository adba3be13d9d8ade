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
#include <utility>
#include <vector>

#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

void infer(IaPlan& plan);

// The same for the nodes marked stale and, downstream of them, the nodes
// whose inputs came out with a different type, distribution or scattering;
// the others keep their derived fields. The optimizer infers thousands of
// candidate plans that differ from their parent in a few nodes. Returns the
// nodes inferred again, in order.
std::vector<int> infer_stale(IaPlan& plan);

// What inference writes into a node: its derived fields, and the parameters
// it completes (a placement's default grid, the site grid). Kept from before
// a node is inferred again, it takes the node back; the parameters a rewrite
// changed are the rewrite's to take back (search/held_plan.hpp).
struct Inferred {
  bool stale = true;
  RelType type;
  Distribution dist;
  bool scattered = false;
  std::string invalid;
  Index predicted_floats = 0;
  double paper_cost = 0, flops = 0, site_flops = 0, site_fold_flops = 0;
  Index site_floats_in = 0, site_calls = 0;
  Placement placement;  // Scan, Shuffle
  Shape site_grid;  // Scan, Shuffle

  static Inferred of(const IaNode& n);
  void restore(IaNode& n);  // moves the fields back into n
};

// The same over the nodes in `order` only (the nodes the roots need, inputs
// first, as normalize() would order them), named in messages by their place
// in it: the optimizer infers candidates before it normalizes them. With
// `overwritten`, what inference is about to write into every node inferred
// again, as it was before, is appended there (to take a candidate back).
std::vector<int> infer_stale(IaPlan& plan, const std::vector<int>& order, std::vector<std::pair<int, Inferred>>* overwritten);

// Empty when every node needed for the roots computes its relation correctly;
// otherwise the first problem, "p<i>: why".
std::string invalid_reason(const IaPlan& plan);
// The same for the nodes in `order`, named by their place in it.
std::string invalid_reason(const IaPlan& plan, const std::vector<int>& order);

// Whether every group of `group_by` keys sits on one site (R2-4's precondition,
// checked exactly).
bool grouped_on_one_site(const Distribution& d, const std::vector<int>& group_by);

}  // namespace tra::physical
