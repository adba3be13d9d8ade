#pragma once
// The run report as JSON, for scripts (`tra-run --report FILE.json`, and the
// attribute tra_report_json of every output file): what the text report
// prints, by name instead of by column. docs/deck.md lists the fields.
#include <cstdint>
#include <string>
#include <vector>

#include "tra/app/plan_deck.hpp"
#include "tra/app/report.hpp"
#include "tra/exec/executor.hpp"

namespace tra::app {

struct RunFacts {  // what the report says about the run besides its operators
  std::string version, command_line, date, host;
  int ranks = 1;
  double wall_seconds = 0, planning_seconds = 0, total_seconds = 0;
  std::int64_t peak_resident_bytes = 0;  // measured, the largest rank's
  Index iterations = 0;  // a training run's, else 0
  double writing_seconds = -1;  // the outputs' writing; < 0: not yet known (the output files' own copy)
  double start_seconds = 0;  // starting what the plan runs when it was bound (exec/kernel_start.hpp), the slowest rank's
};

// `iterations`: a training run's (app/report.hpp). Its "operators" are then
// the last iteration's ("operators_scope": "last iteration"), "totals" are
// the whole run's sums, and "per_iteration" holds the median and the last.
std::string json_report(const PlannedDeck& planned, const std::vector<exec::NodeRun>& runs, const exec::RunTotals& totals, const RunFacts& facts,
                        const std::vector<IterationTimes>& iterations = {});

}  // namespace tra::app
