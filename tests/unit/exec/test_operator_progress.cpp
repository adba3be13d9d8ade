// Progress inside a long operator: quiet before its first interval, then
// kernel calls done of the total, on rank 0's standard error.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "tra/common/log.hpp"
#include "tra/exec/operator_progress.hpp"

namespace tra::exec {
namespace {

std::string printed_by(double first_after, int ticks) {
  std::stringstream err;
  std::streambuf* old = std::cerr.rdbuf(err.rdbuf());
  OperatorProgress p("p7 ⋈L", 40, first_after, 0.0);
  for (int i = 0; i < ticks; ++i) p.tick();
  std::cerr.rdbuf(old);
  return err.str();
}

TEST(OperatorProgress, ShortOperatorsPrintNothing) { EXPECT_EQ(printed_by(3600.0, 40), ""); }

TEST(OperatorProgress, CountsCallsDoneOfTheTotal) {
  const std::string out = printed_by(0.0, 3);
  EXPECT_NE(out.find("[tra]   p7 ⋈L: 0 of 40 kernel calls on rank 0, "), std::string::npos) << out;
  EXPECT_NE(out.find("p7 ⋈L: 2 of 40 kernel calls on rank 0, "), std::string::npos) << out;
}

}  // namespace
}  // namespace tra::exec
