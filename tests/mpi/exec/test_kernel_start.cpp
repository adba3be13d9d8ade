// The start at bind (exec/kernel_start.hpp) runs one exchange of each kind
// the plan moves, collectively, before any operator: on more than one rank
// a plan with a Bcast or a Shuffle reports time spent on them, and the
// plan's own run after it equals the naive evaluator's result.
#include <gtest/gtest.h>

#include <cfloat>

#include "support/gathered.hpp"
#include "support/planned.hpp"
#include "support/reference_evaluator.hpp"
#include "tra/exec/executor.hpp"
#include "tra/io/deck/deck_reader.hpp"

namespace tra {
namespace {

using physical::IaNode;

// C in row blocks, then its column sums: each rank's partial sums move to
// the rank of their column, or every rank's C to one.
const char* const kDeck = R"deck(
tensors:
  - {name: A, shape: [64, 8], chunk: [8, 8], source: "uniform(-1, 1, 1)"}
  - {name: B, shape: [8, 8], chunk: [8, 8], source: "uniform(-1, 1, 3)"}
graph:
  - "C[i,k] = sum_{j} A[i,j] * B[j,k]"
  - "S[k] = sum_{i} C[i,k]"
run:
  partitioning: {C: {i: 8, j: 1, k: 1}, S: {i: 8, k: 1}}
)deck";

TEST(KernelStart, StartsTheExchangesAndLeavesTheRunExact) {
  comm::Communicator c;
  physical::OptimizerOptions options;
  options.disabled = {"scan-all"};  // each rank reads its rows of A alone
  const test::PlannedFor p = test::planned_for(kDeck, c.size(), {"S"}, options);
  const physical::IaPlan& plan = p.plan;
  const int out = p.node.at("S");
  bool moves = false;
  for (const IaNode& n : plan.nodes) moves |= n.kind() == IaNode::Kind::Bcast || n.kind() == IaNode::Kind::Shuffle;
  if (c.size() > 1) ASSERT_TRUE(moves) << "the plan moves chunks between ranks";

  exec::Executor ex(plan, c, {out});
  if (c.size() > 1) EXPECT_GT(ex.start_times().exchanges, 0.0) << ex.start_times().text();
  else EXPECT_EQ(ex.start_times().exchanges, 0.0) << "one rank moves nothing";
  ex.run();

  const model::Workflow wf = io::parse_deck(kDeck, "case.yaml", "");
  const testing::Dense want = testing::evaluate_workflow(wf).at("S");
  const testing::Dense got = testing::gathered(c, ex.result(out), plan.node(out));
  // Sums of 64 sums of 8 products of values below 1.
  EXPECT_LE(testing::max_abs_diff(got, want), 64 * 8 * 8 * DBL_EPSILON);
}

}  // namespace
}  // namespace tra
