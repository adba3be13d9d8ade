#pragma once
// An equivalence rule of the IA (TRA paper §5.2, Table 2): a rewrite applied
// at one node of a plan when its precondition holds there.
//
// Rules read the plan's inferred fields (types, distributions) to check their
// preconditions, append the nodes they create, and redirect consumers; the
// optimizer then normalizes the plan and infers it again. A rule never
// changes the content of the relation it rewrites, only how it is computed:
// tests run both sides of every rule on random relations and compare the
// outputs tuple by tuple. A rule may change where that relation's tuples end
// up (R2-4 drops a shuffle), and a local join further up that relied on the
// old placement would then miss pairs; infer() flags such a plan invalid and
// the optimizer discards it.
#include <functional>
#include <string>
#include <vector>

#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

struct Rule {
  std::string name;  // "R1-2", as in the paper, or "scan-part" for those beyond it
  std::string summary;  // one line for EXPLAIN and docs
  // Rewrites `plan` at node `at` into its `variant`-th equivalent form and
  // returns true, or returns false and leaves the plan untouched.
  std::function<bool(IaPlan& plan, int at, int variant)> apply;
  int variants = 1;  // R2-6 has three forms of a join; R1-7 and R2-5 two; the others one
  // The kinds of operator it can rewrite at (its left-hand side's top); the
  // search does not try it elsewhere.
  std::vector<IaNode::Kind> at_kinds;
  // Whether its match at a node depends on more than that node, its inputs
  // and theirs (all a search remembers of where a rule found nothing,
  // search/held_plan.hpp): such a rule is never taken as not applying.
  bool matches_beyond_inputs = false;
};

// A Rule::apply for rules with a single form.
inline std::function<bool(IaPlan&, int, int)> single(bool (*rewrite)(IaPlan&, int)) {
  return [rewrite](IaPlan& p, int at, int) { return rewrite(p, at); };
}

// R1-1 … R1-7: kernel-function composition (kernel_composition.cpp).
const std::vector<Rule>& kernel_composition_rules();
// R2-1 … R2-7: re-partitioning (repartition.cpp).
const std::vector<Rule>& repartition_rules();
// The initial placement of inputs is part of the plan (scan_placement.cpp).
const std::vector<Rule>& scan_placement_rules();
// Where a shuffle sends its groups is part of the plan too (shuffle_placement.cpp).
const std::vector<Rule>& shuffle_placement_rules();
// One exchange of a relation shared by its consumers (shared_exchange.cpp).
const std::vector<Rule>& shared_exchange_rules();

// All of them in the order the optimizer tries them.
std::vector<const Rule*> all_rules();

}  // namespace tra::physical
