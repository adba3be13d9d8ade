#pragma once
// The closing report: per IA operator, time, predicted and measured floats
// moved, and GFLOP/s; then totals and one summary line that scripts parse:
//   tra-run: execute <s> s, <gflop> GFLOP, <rate> GFLOP/s, <n> floats moved
// where <s> is the operators' time without reading the inputs.
#include <string>
#include <vector>

#include "tra/exec/executor.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::app {

std::string format_report(const physical::IaPlan& plan, const std::vector<exec::NodeRun>& runs, double wall_seconds);

}  // namespace tra::app
