// An element-wise join writes its result over the chunks of an input that
// nothing reads after it (exec/executor.hpp): W = Z * V over Z = X + 2 Y
// leaves W in Z's buffers, with the values of the naive evaluator; where Z is
// kept (an output), W gets buffers of its own and Z stays intact.
#include <gtest/gtest.h>

#include <cfloat>
#include <set>

#include "support/gathered.hpp"
#include "support/planned.hpp"
#include "support/reference_evaluator.hpp"
#include "tra/exec/executor.hpp"
#include "tra/io/deck/deck_reader.hpp"

namespace tra {
namespace {

using physical::IaNode;

const char* const kDeck = R"deck(
tensors:
  - {name: X, shape: [8, 6], chunk: [2, 6], source: "uniform(-1, 1, 1)"}
  - {name: Y, shape: [8, 6], chunk: [2, 6], source: "uniform(-1, 1, 2)"}
  - {name: V, shape: [8, 6], chunk: [2, 6], source: "uniform(-1, 1, 3)"}
graph:
  - "Z[i,j] = X[i,j] + Y[i,j] * 2"
  - "W[i,j] = Z[i,j] * V[i,j]"
)deck";

// Runs the deck keeping `kept`; returns the whole of each kept tensor and
// whether every chunk of W this rank holds lies in a buffer one of W's
// join's inputs held when the join began.
std::pair<std::map<std::string, testing::Dense>, bool> run(const std::vector<std::string>& kept) {
  comm::Communicator c;
  const test::PlannedFor p = test::planned_for(kDeck, c.size(), kept);
  const physical::IaPlan& ia = p.plan;
  const std::map<std::string, int>& node_of = p.node;
  const std::set<int> keep(ia.roots.begin(), ia.roots.end());
  const int w = node_of.at("W");
  EXPECT_EQ(ia.node(w).kind(), IaNode::Kind::LocalJoin) << "W is computed by its join";
  exec::Executor ex(ia, c, keep);
  std::set<const Scalar*> input_buffers;
  ex.run([&](int node) {
    if (node != w) return;
    for (int in : ia.node(w).inputs)
      for (const Tuple& t : ex.result(in)) input_buffers.insert(t.chunk.data.data());
  });
  bool over_inputs = true;
  for (const Tuple& t : ex.result(w)) over_inputs = over_inputs && input_buffers.count(t.chunk.data.data());
  std::map<std::string, testing::Dense> out;
  for (const auto& [name, n] : node_of) out[name] = testing::gathered(c, ex.result(n), ia.node(n));
  return {out, over_inputs};
}

TEST(ExecutorInPlace, AJoinWritesOverAnInputNothingReadsLater) {
  const auto ref = testing::evaluate_workflow(io::parse_deck(kDeck, "case.yaml", ""));
  const auto [out, over_inputs] = run({"W"});
  EXPECT_TRUE(over_inputs) << "W is written over Z's (or V's) chunks";
  EXPECT_LE(testing::max_abs_diff(out.at("W"), ref.at("W")), 4 * DBL_EPSILON) << "two roundings per element";
}

TEST(ExecutorInPlace, AKeptInputKeepsItsValues) {
  const auto ref = testing::evaluate_workflow(io::parse_deck(kDeck, "case.yaml", ""));
  const auto [out, over_inputs] = run({"W", "Z"});
  EXPECT_LE(testing::max_abs_diff(out.at("Z"), ref.at("Z")), 2 * DBL_EPSILON) << "Z, an output, is not overwritten";
  EXPECT_LE(testing::max_abs_diff(out.at("W"), ref.at("W")), 4 * DBL_EPSILON);
}

}  // namespace
}  // namespace tra
