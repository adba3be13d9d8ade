// The kernel calls each operator makes at its busiest site
// (IaNode::site_calls), which ops::fixed_seconds charges Rates::call_seconds
// each beside the operator's own Rates::operator_seconds: a join's pairs, an
// aggregation's members, a map's tuples (one per piece for a cut, none for a
// replication whose tuples share their input's chunk). Counted by hand from
// the plans' printed distributions (a 600x400 by 400x500 product labeled
// {i: 2, j: 2, k: 2} on 4 ranks).
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "tra/app/plan_deck.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"
#include "tra/physical/compile.hpp"
#include "tra/physical/cost_model.hpp"
#include "tra/physical/infer.hpp"
#include "tra/physical/ops/ops.hpp"

namespace tra::physical {
namespace {

// A is one chunk, cut into the labeling's 2 x 2 blocks; B is read in them.
const std::string kDeck =
    "tensors:\n"
    "  - {name: A, shape: [600, 400], chunk: [600, 400], source: \"uniform(-1, 1, 1)\"}\n"
    "  - {name: B, shape: [400, 500], source: \"uniform(-1, 1, 2)\"}\n"
    "graph:\n"
    "  - \"C[i,k] = sum_j A[i,j] * B[j,k]\"\n"
    "  - \"R[i,k] = relu(C[i,k])\"\n"
    "run:\n"
    "  partitioning:\n"
    "    C: {i: 2, j: 2, k: 2}\n"
    "outputs:\n  - {tensor: R, file: out.h5}\n";

// Rates at which work costs nothing: what is left is the fixed costs.
// The same product with both operands read in blocks: its best strategy
// replicates them (inputs/matmul.yaml's plan on 4 ranks).
const std::string kProduct =
    "tensors:\n"
    "  - {name: A, shape: [600, 400], source: \"uniform(-1, 1, 1)\"}\n"
    "  - {name: B, shape: [400, 500], source: \"uniform(-1, 1, 2)\"}\n"
    "graph:\n"
    "  - \"C[i,k] = sum_j A[i,j] * B[j,k]\"\n"
    "run:\n"
    "  partitioning:\n"
    "    C: {i: 2, j: 2, k: 2}\n"
    "outputs:\n  - {tensor: C, file: out.h5}\n";

Rates fixed_costs_only() {
  Rates r;
  r.gemm_flops = r.gemm_flops_float32 = r.loop_flops = r.memory_bytes = r.generate_floats = 1e300;
  r.call_seconds = 1e-6;
  r.operator_seconds = 1e-5;
  return r;
}

bool shares_its_chunk(const IaNode& n) { return n.kind() == IaKind::LocalMap && n.map().expand && shares_chunk(*n.map().expand); }

TEST(FixedCosts, EachOperatorIsChargedTheCallsItsBusiestSiteMakes) {
  const auto low = logical::lower(io::parse_deck(kDeck, "deck.yaml", ""), 4);
  const IaPlan p = compile(low.plan, 4);
  ASSERT_TRUE(invalid_reason(p).empty()) << invalid_reason(p);
  // Table 1's plan: A's Scan, the cut into 4 pieces on its one site, their
  // assembly (a group of one piece per site), B's Scan (a block per site),
  // the join's 8 pairs (2 per site), the sum's 4 groups of 2 members (one
  // group per site), the relu (a chunk per site).
  std::vector<Index> calls;
  for (const IaNode& n : p.nodes)
    if (n.kind() != IaKind::Bcast && n.kind() != IaKind::Shuffle) calls.push_back(n.site_calls);
  EXPECT_EQ(calls, (std::vector<Index>{1, 4, 1, 1, 2, 2, 1}));
  // The cut copies A's 600 x 400 elements into its pieces: a loop operation each.
  EXPECT_EQ(p.nodes[1].site_flops, 600.0 * 400.0) << p.nodes[1].words();
  const Rates r = fixed_costs_only();
  const PlanCost cost = cost_of(p, r);
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const IaNode& n = p.nodes[i];
    if (n.kind() != IaKind::LocalJoin && n.kind() != IaKind::LocalAgg && n.kind() != IaKind::LocalMap) continue;
    EXPECT_NEAR(cost.node_seconds[i], 1e-5 + static_cast<double>(n.site_calls) * 1e-6, 1e-15) << n.words();
  }
}

TEST(FixedCosts, AReplicationSharesItsInputsChunkAndCallsNoKernel) {
  const app::PlannedDeck planned = app::plan_deck(io::parse_deck(kProduct, "deck.yaml", ""), 4, {});
  const IaPlan& p = planned.optimized.chosen;
  const Rates r = fixed_costs_only();
  int shared = 0;
  for (const IaNode& n : p.nodes) {
    if (!shares_its_chunk(n)) continue;
    ++shared;
    EXPECT_EQ(n.site_calls, 0) << n.words();
    EXPECT_EQ(n.site_flops, 0) << n.words();  // nothing copied
    EXPECT_EQ(ops::seconds(n.map(), n, r, false), 0) << n.words();  // no call, no operator, no work
  }
  // The strategy chosen for C's product replicates A's and B's blocks
  // (insertDim, duplicate), then spreads them on their sites.
  EXPECT_GE(shared, 2);
}

TEST(FixedCosts, AnAggregationFoldedInItsJoinsGemmPaysNoFixedCost) {
  const app::PlannedDeck planned = app::plan_deck(io::parse_deck(kProduct, "deck.yaml", ""), 4, {});
  const IaPlan& p = planned.optimized.chosen;
  const std::vector<int> into = streamed_into(p, live_nodes(p));
  const Rates r = fixed_costs_only();
  const PlanCost cost = cost_of(p, r);
  int folded = 0;
  for (size_t j = 0; j < into.size(); ++j) {
    if (into[j] < 0 || !folds_in_gemm(p, static_cast<int>(j), into[j])) continue;
    ++folded;
    const IaNode& agg = p.node(into[j]);
    EXPECT_EQ(agg.site_calls, 2) << agg.words();  // the members are still counted ...
    EXPECT_EQ(cost.node_seconds[static_cast<size_t>(into[j])], 0) << agg.words();  // ... and charged nothing: the GEMM adds them
    EXPECT_NEAR(ops::seconds(agg.agg(), agg, r, false), 1e-5 + 2 * 1e-6, 1e-15);  // unfolded: the operator and 2 calls
  }
  EXPECT_EQ(folded, 1);
}

}  // namespace
}  // namespace tra::physical
