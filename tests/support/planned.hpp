#pragma once
// A deck's text planned the way tra-run plans it, without running it:
// parsed, lowered to TRA on `ranks` sites, compiled to IA and optimized.
#include <map>
#include <string>
#include <vector>

#include "tra/physical/optimizer.hpp"

namespace tra::test {

physical::IaPlan planned(const std::string& deck, int ranks, const physical::OptimizerOptions& options = {});

// The same with the tensors `wanted` as the plan's roots, in that order:
// the plan, and the node of each wanted tensor in it.
struct PlannedFor {
  physical::IaPlan plan;
  std::map<std::string, int> node;
};
PlannedFor planned_for(const std::string& deck, int ranks, const std::vector<std::string>& wanted, const physical::OptimizerOptions& options = {});

}  // namespace tra::test
