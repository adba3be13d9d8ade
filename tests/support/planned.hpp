#pragma once
// A deck's text planned the way tra-run plans it, without running it:
// parsed, lowered to TRA on `ranks` sites, compiled to IA and optimized.
#include <string>

#include "tra/physical/optimizer.hpp"

namespace tra::test {

physical::IaPlan planned(const std::string& deck, int ranks, const physical::OptimizerOptions& options = {});

}  // namespace tra::test
