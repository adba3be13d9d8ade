// The rule list: every rule of physical/rules/ has a test in this folder.
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"

namespace tra {
namespace {

using namespace rule_cases;

// ---------------------------------------------------------------- the rule list

TEST(IaRules, EveryRuleHasATest) {
  std::vector<std::string> names;
  for (const physical::Rule* r : physical::all_rules()) names.push_back(r->name);
  const std::vector<std::string> tested = {"R2-1",      "R2-2",     "R2-3",      "R2-4",           "R2-5",           "R2-6",           "R2-7",
                                           "R1-1",      "R1-2",     "R1-3",      "R1-4",           "R1-5",           "R1-6",           "R1-7",
                                           "scan-part", "scan-all", "scan-face", "shuffle-spread", "share-exchange", "broadcast-below"};
  EXPECT_EQ(names, tested) << "a rule was added or renamed: give it a test in tests/mpi/physical/rules/";
}

}  // namespace
}  // namespace tra
