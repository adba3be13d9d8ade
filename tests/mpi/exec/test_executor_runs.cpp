// One executor runs its plan many times, as a training run does
// (exec/executor.hpp): U = 0.5·W + V run four times, each run's U handed
// back to the next run's Scan of W (exec/loop_carry.hpp), ends at the values
// of the same recurrence computed here on the naive evaluator's W and V;
// and where the hand-back moves nothing, U stays in the buffers of the first
// run's U: each run drops the last run's results before it starts, so W's
// chunks have one owner and are updated in place.
#include <gtest/gtest.h>

#include <cfloat>
#include <set>

#include "support/gathered.hpp"
#include "support/planned.hpp"
#include "support/reference_evaluator.hpp"
#include "tra/exec/executor.hpp"
#include "tra/exec/loop_carry.hpp"
#include "tra/io/deck/deck_reader.hpp"

namespace tra {
namespace {

using physical::IaNode;

const char* const kDeck = R"deck(
tensors:
  - {name: W, shape: [8, 6], chunk: [2, 6], source: "uniform(-1, 1, 1)"}
  - {name: V, shape: [8, 6], chunk: [2, 6], source: "uniform(-1, 1, 3)"}
graph:
  - "U[i,j] = W[i,j] * 0.5 + V[i,j]"
run:
  partitioning: {U: {i: 4, j: 1}}
)deck";

constexpr int kRuns = 4;

std::set<const Scalar*> buffers(const std::vector<Tuple>& tuples) {
  std::set<const Scalar*> out;
  for (const Tuple& t : tuples) out.insert(t.chunk.data.data());
  return out;
}

TEST(ExecutorRuns, OneExecutorRunsALoopAndKeepsTheCarriedTensorInItsBuffers) {
  comm::Communicator c;
  const model::Workflow wf = io::parse_deck(kDeck, "case.yaml", "");
  const test::PlannedFor p = test::planned_for(kDeck, c.size(), {"U"});
  const physical::IaPlan& ia = p.plan;
  const int u = p.node.at("U");
  std::vector<int> scans_of_w;
  for (size_t i = 0; i < ia.nodes.size(); ++i)
    if (ia.nodes[i].kind() == IaNode::Kind::Scan && ia.nodes[i].scan().source->name == "W") scans_of_w.push_back(static_cast<int>(i));
  ASSERT_FALSE(scans_of_w.empty());

  exec::Executor ex(ia, c, {u});
  ex.run();
  const std::set<const Scalar*> first_buffers = buffers(ex.result(u));
  Index moved_all = 0;
  for (int run = 1; run < kRuns; ++run) {
    for (int scan : scans_of_w) {
      Index moved = 0;
      auto tuples = exec::carry(c, ex.result(u), ia.node(u), ia.node(scan), moved);
      ASSERT_TRUE(tuples) << "U's chunks are W's";
      moved_all += moved;
      ex.set_scan_tuples(scan, std::move(*tuples));
    }
    ex.run();
  }
  if (c.sum(moved_all) == 0) EXPECT_EQ(buffers(ex.result(u)), first_buffers) << "U is updated in its own buffers on every run";

  const auto ref = testing::evaluate_workflow(wf);
  testing::Dense w = ref.at("W");
  const testing::Dense& v = ref.at("V");
  for (int run = 0; run < kRuns; ++run)
    for (size_t i = 0; i < w.v.size(); ++i) w.v[i] = w.v[i] * 0.5 + v.v[i];
  const testing::Dense got = testing::gathered(c, ex.result(u), ia.node(u));
  // One rounding per run (the halving is exact), on values below 3.
  EXPECT_LE(testing::max_abs_diff(got, w), kRuns * 4 * DBL_EPSILON);
}

}  // namespace
}  // namespace tra
