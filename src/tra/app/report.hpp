#pragma once
// The closing report: per IA operator, time, predicted and measured floats
// moved, and GFLOP/s; then totals and one summary line that scripts parse:
//   tra-run: execute <s> s, <gflop> GFLOP, <rate> GFLOP/s, <n> floats moved
// where <s> is the operators' time without reading the inputs (the slowest
// rank's sum; a per-operator column is the slowest rank's time in it).
#include <string>
#include <vector>

#include "tra/exec/executor.hpp"
#include "tra/physical/cost_model.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::app {

// Flops the operator's measured time covers: a join streamed into its
// aggregation (exec/join_aggregate.hpp) carries the aggregation's, which
// then has none of its own. Both reports rate operators by it.
double run_flops(const physical::IaPlan& plan, const std::vector<exec::NodeRun>& runs, size_t i);

// One training iteration: its time (the slowest rank's), reading and
// operator time (exec::RunTotals) and the floats its operators moved.
struct IterationTimes {
  double wall = 0, reading = 0, operators = 0;
  Index moved = 0;
};

// A training run's iterations in the report's two scopes: per iteration
// (the median and the last) and the whole run (sums).
struct IterationSummary {
  Index count = 0;
  IterationTimes median, last, sum;
};
IterationSummary summarize(const std::vector<IterationTimes>& iterations);

// `iterations`: a training run's (empty for any other run). The operator
// table is then the last iteration's, and the totals are given per
// iteration and for the whole run, each labelled.
std::string format_report(const physical::IaPlan& plan, const std::vector<exec::NodeRun>& runs, const exec::RunTotals& totals, double wall_seconds,
                          const std::vector<IterationTimes>& iterations = {});

// EXPLAIN ANALYZE: per operator, the cost model's prediction beside the
// measurement — floats moved (equal: placement is deterministic) and seconds.
std::string format_analyze(const physical::IaPlan& plan, const physical::PlanCost& predicted, const std::vector<exec::NodeRun>& runs);

}  // namespace tra::app
