#pragma once
// Plan search (TRA paper §5.2–§5.3): from the Table-1 plan, apply the
// equivalence rules to a fixed point, keeping a rewrite only when the cost
// model says the plan got cheaper; then, join by join, try every placement
// strategy (BMM, CMM, RMM, …; join_strategies.hpp), settle each candidate with
// the simple rules again, and keep the cheapest. Two passes over the joins let
// a choice react to the choices after it.
#include <set>
#include <string>
#include <vector>

#include "tra/physical/calibration.hpp"
#include "tra/physical/cost_model.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

struct OptimizerOptions {
  std::set<std::string> disabled;  // rule names (R1-1 … R2-7, scan-part, scan-all) and strategy families (BMM, CMM, …)
  std::string strategy = "auto";   // or a family every join with an aggregation must use: bmm, cmm, rmm, 2d, mixed
  Rates rates;
};

struct AppliedRule {
  std::string rule;
  std::string where;  // the operator it rewrote, in words
  double seconds_before = 0, seconds_after = 0;
};

struct Alternative {
  int tra_node = -1;
  std::string statement;
  std::string strategy;
  PlanCost cost;
  std::string invalid;  // why it was not a valid plan, if it was not
  bool chosen = false;
};

struct Optimized {
  IaPlan initial, chosen;
  PlanCost initial_cost, cost;
  std::vector<AppliedRule> applied;
  std::vector<Alternative> alternatives;
  std::vector<std::string> notes;  // e.g. a forced strategy that does not apply to a join
  double seconds = 0;              // time spent optimizing
};

// All names a user may disable (checked when reading options).
std::vector<std::string> rule_and_strategy_names();

Optimized optimize(const IaPlan& initial, const OptimizerOptions& options);

// The EXPLAIN text: initial plan, rules applied, alternatives, chosen plan.
std::string explain(const Optimized& o);

}  // namespace tra::physical
