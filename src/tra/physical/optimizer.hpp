#pragma once
// Plan search (TRA paper §5.2–§5.3): from the Table-1 plan, apply the
// equivalence rules to a fixed point, keeping a rewrite only when the cost
// model says the plan got cheaper; then, join by join, try every placement
// strategy (BMM, CMM, RMM, …; join_strategies.hpp), settle each candidate with
// the simple rules again, and keep the cheapest. Two passes over the joins let
// a choice react to the choices after it. The three are named phases
// (optimizer.cpp); the held plan and its in-place trials are in search/, the
// EXPLAIN text in explain.cpp.
#include <set>
#include <string>
#include <vector>

#include "tra/physical/calibration.hpp"
#include "tra/physical/carry_plan.hpp"
#include "tra/physical/cost_model.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

struct OptimizerOptions {
  std::set<std::string> disabled;  // rule names (R1-1 … R2-7, scan-part, scan-all, scan-face, shuffle-spread) and strategy families (BMM, CMM, …)
  std::string strategy = "auto";  // or a family every join with an aggregation must use: bmm, cmm, rmm, 2d, mixed
  Rates rates;
  // run: memory_per_rank: (or the machine's share): a plan whose estimated
  // peak per rank (memory_estimate.hpp) is above it is never chosen among
  // the labelings compared (app/plan_deck). 0: no limit.
  std::int64_t memory_per_rank = 0;
  // A training step's loop-carried tensors (X -> the place of X.next among
  // the plan's roots): every candidate is costed with the Carry operators it
  // would end with (carry_plan.hpp), which the caller appends to the plan
  // chosen (app/plan_deck).
  CarriedRoots carried;
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

// One named phase of the search, as --explain shows it.
struct PhaseReport {
  std::string name, what;
  bool skipped = false;  // disabled by name
  int changes = 0;  // rewrites kept ("rules") or joins whose strategy changed
  double seconds = 0;
  PlanCost before, after;
};

// One edit the search kept, in the order it made them: enough to make the
// chosen plan again from the initial one without searching (replay(),
// search/search_record.hpp), as the ranks that did not plan a labeling do.
struct PlanStep {
  enum Kind : int {
    Rule,  // rule all_rules()[b], variant c, at node a
    Join,  // join strategy b of join_strategies() at join node a, placed (place_join)
    Tidy,  // the plan normalized (Held::tidy)
    Everywhere,  // the held plan replaced by the whole plan on every site (the phase "everywhere")
  };
  int kind = Rule, a = 0, b = 0, c = 0;
  bool operator==(const PlanStep& o) const { return kind == o.kind && a == o.a && b == o.b && c == o.c; }
};

struct Optimized {
  IaPlan initial, chosen;
  std::vector<PlanStep> steps;  // the kept edits that make `chosen` of `initial`
  std::vector<PhaseReport> phases;  // in the order they ran
  PlanCost initial_cost, cost;
  std::vector<AppliedRule> applied;
  std::vector<Alternative> alternatives;
  std::vector<std::string> notes;  // e.g. a forced strategy that does not apply to a join
  double seconds = 0;  // time spent optimizing
};

// The search's phases in order (DuckDB's optimizer list is the model): the
// simple rules to a fixed point ("rules"), then every join's strategies
// ("strategies"), then all of them again in the context of the later choices
// ("strategies-again"). Each is timed, shown by --explain with what it
// changed, and can be switched off by name like a rule.
std::vector<std::string> optimizer_phase_names();

// What --strategy and run: optimizer: strategy accept: auto, then the
// families of joins with an aggregation, lower-case (bmm, cmm, rmm, 2d, mixed).
std::vector<std::string> strategy_names();

// All names a user may disable (checked when reading options): rules,
// strategy families and phases.
std::vector<std::string> rule_and_strategy_names();

Optimized optimize(const IaPlan& initial, const OptimizerOptions& options);

// The plan optimize() chose, made again from its kept edits (Optimized::steps)
// without searching: the same `initial` and `options` give the same plan and
// cost. What the search saw (phases, rules, alternatives, notes) is not in
// the steps: the result has none. An InternalError if a step does not apply.
Optimized replay(const IaPlan& initial, const OptimizerOptions& options, const std::vector<PlanStep>& steps);

// The EXPLAIN text: initial plan, rules applied, alternatives, chosen plan.
std::string explain(const Optimized& o);

}  // namespace tra::physical
