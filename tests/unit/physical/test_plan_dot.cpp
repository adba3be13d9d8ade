// --explain=dot: every operator of the plan is a node and every input an
// edge, with its kind and the floats it moves; Graphviz reads the text.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <string>

#include "support/planned.hpp"
#include "tra/physical/plan_dot.hpp"

namespace tra::physical {
namespace {

const char* kDeck =
    "tensors:\n"
    "  - {name: X, shape: [64, 48], source: \"uniform(-1, 1, 1)\"}\n"
    "  - {name: W, shape: [48, 32], source: \"uniform(-1, 1, 2)\"}\n"
    "graph:\n"
    "  - \"H[i,k] = sum_j X[i,j] * W[j,k]\"\n"
    "  - \"R[i,k] = relu(H[i,k])\"\n"
    "outputs:\n  - {tensor: R, file: r.h5}\n";

IaPlan planned(int ranks) { return test::planned(kDeck, ranks); }

size_t count(const std::string& text, const std::regex& re) {
  return static_cast<size_t>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

TEST(PlanDot, OneNodePerOperatorAndOneEdgePerInput) {
  for (int ranks : {1, 4}) {
    const IaPlan plan = planned(ranks);
    const std::string dot = plan_dot(plan, "deck.yaml \"quoted\"");
    size_t edges = 0;
    for (const auto& n : plan.nodes) edges += n.inputs.size();
    EXPECT_EQ(count(dot, std::regex(R"(\n\s*p\d+ \[label=)")), plan.nodes.size()) << dot;
    EXPECT_EQ(count(dot, std::regex(R"(\n\s*p\d+ -> p\d+;)")), edges) << dot;
    for (size_t i = 0; i < plan.nodes.size(); ++i) {
      const IaNode& n = plan.nodes[i];
      EXPECT_NE(dot.find("p" + std::to_string(i) + " " + n.name()), std::string::npos) << "p" << i;
      if (n.moves()) EXPECT_NE(dot.find("moves " + std::to_string(n.predicted_floats) + " floats"), std::string::npos) << "p" << i;
    }
    EXPECT_NE(dot.find("deck.yaml \\\"quoted\\\""), std::string::npos) << "a quote in the title is escaped";
    EXPECT_NE(dot.find(std::to_string(plan.predicted_floats()) + " floats moved between " + std::to_string(ranks) + " sites"), std::string::npos);
  }
}

// Graphviz itself accepts the text (where it is installed: scripts/setup
// installs it).
TEST(PlanDot, GraphvizDrawsIt) {
  if (std::system("command -v dot > /dev/null 2>&1") != 0) GTEST_SKIP() << "graphviz (dot) is not installed";
  const std::string path = "tra_plan_dot_test.dot";
  std::ofstream(path) << plan_dot(planned(4), "deck.yaml");
  EXPECT_EQ(std::system(("dot -Tsvg " + path + " -o /dev/null").c_str()), 0);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tra::physical
