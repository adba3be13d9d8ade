// The optimizer (TRA paper §5.2–§5.3): the cost model against costs counted
// by hand, the rule sequence of the paper's diag(X+Y) example, and the plan
// chosen for the three matmul shapes of §6.1 — the one that moves least when
// moving data is what costs (the paper's cost model), read off the EXPLAIN text.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"
#include "tra/physical/compile.hpp"
#include "tra/physical/cost_model.hpp"
#include "tra/physical/optimizer.hpp"

using tra::physical::IaPlan;
using tra::physical::Optimized;
using tra::physical::OptimizerOptions;
using tra::physical::Rates;

namespace {

// Table-1 plan of a deck, keeping only the statement outputs named.
IaPlan table_one(const std::string& deck, int s, const std::vector<std::string>& keep) {
  // The deck is gone when the plan is used: plans hold copies of what they read.
  const auto low = tra::logical::lower(tra::io::parse_deck(deck, "deck.yaml", ""), s);
  IaPlan p = tra::physical::compile(low.plan, s);
  p.roots.clear();
  for (const auto& t : keep) p.roots.push_back(p.tra_to_ia[static_cast<size_t>(low.tensor_node.at(t))]);
  return p;
}

// Only moving data costs: the paper's cost model, in seconds.
Rates network_bound() {
  Rates r;
  r.gemm_flops = r.loop_flops = r.generate_floats = r.generate_normal_floats = r.hdf5_read_bytes = r.memory_bytes = 1e18;
  r.shuffle_bytes = r.bcast_bytes = 1e3;
  r.latency = 1e-15;
  r.call_seconds = r.operator_seconds = r.open_seconds = 0;  // none (a CUDA build's built-ins have some)
  return r;
}

std::string matmul(int i, int j, int k) {
  return "tensors:\n"
         "  - {name: A, shape: [" +
         std::to_string(i) + ", " + std::to_string(j) +
         "], source: \"uniform(-1, 1, 1)\"}\n"
         "  - {name: B, shape: [" +
         std::to_string(j) + ", " + std::to_string(k) +
         "], source: \"uniform(-1, 1, 2)\"}\n"
         "graph:\n"
         "  - \"C[i,k] = sum_j A[i,j] * B[j,k]\"\n"
         "run:\n"
         "  partitioning:\n"
         "    C: {i: 4, j: 4, k: 4}\n";
}

}  // namespace

TEST(Optimizer, CostModelMatchesCostsCountedByHand) {
  // A 8x6 · B 6x4, rows of A in two chunks, on 2 sites, Table 1:
  // Scan A (one 4x6 tuple per site), Scan B (one 6x4 tuple on site 0),
  // Bcast A (each site receives 24 floats), join on site 0 (2 GEMMs of
  // 2·4·4·6 flops), Shuffle (site 0 sends C's second 4x4 block), LocalAgg.
  Rates r;
  r.gemm_flops = r.loop_flops = r.generate_floats = r.generate_normal_floats = r.shuffle_bytes = r.bcast_bytes = r.memory_bytes = 1e6;
  r.latency = 1e-3;
  r.call_seconds = r.operator_seconds = r.open_seconds = 0;  // counted in tests/unit/physical/ops/test_scan.cpp
  const std::string rows_deck =
      "tensors:\n"
      "  - {name: A, shape: [8, 6], source: \"uniform(-1, 1, 1)\"}\n"
      "  - {name: B, shape: [6, 4], source: \"uniform(-1, 1, 2)\"}\n"
      "graph:\n"
      "  - \"C[i,k] = sum_j A[i,j] * B[j,k]\"\n";
  const IaPlan q = table_one(rows_deck, 2, {"C"});
  const auto c = tra::physical::cost_of(q, r);
  EXPECT_EQ(c.floats_moved, 2 * 24 + 16);  // each site sends its 24 floats to the other
  EXPECT_DOUBLE_EQ(c.paper_cost, 48.0 * 2 + 32.0);  // Bcast f·s + Shuffle f
  EXPECT_EQ(c.operators, 6);
  const double expected = 24 / 1e6 + 24 / 1e6  // reads
                          + 1e-3 + 24 * 8 / 1e6  // Bcast
                          + 2 * 192 / 1e6  // two GEMMs on site 0: their flops,
                          + 2 * (24 + 24 + 16) * 8 / 1e6  // and their chunks read and results written
                          + 1e-3 + 16 * 8 / 1e6;  // Shuffle
  EXPECT_NEAR(c.seconds, expected, 1e-12);
}

TEST(Optimizer, DiagOfASumTakesThePapersRules) {
  const std::string deck =
      "tensors:\n"
      "  - {name: X, shape: [8, 8], chunk: [2, 2], source: \"uniform(-1, 1, 31)\"}\n"
      "  - {name: Y, shape: [8, 8], chunk: [2, 2], source: \"arange(0, 1)\"}\n"
      "graph:\n"
      "  - \"S[i,j] = X[i,j] + Y[i,j]\"\n"
      "  - {op: filter, input: S, output: F, where: \"k0 == k1\"}\n"
      "  - {op: rekey, input: F, output: G, key: \"[k0]\"}\n"
      "  - {op: transform, input: G, output: Z, kernel: diag}\n"
      "run:\n"
      "  partitioning:\n"
      "    S: {i: 4, j: 4}\n";
  // The paper's sequence ranks plans by their floats and work: with an
  // operator's fixed cost, pushing diag under the broadcast (R2-3) costs an
  // operator more than the 16 elements it saves.
  OptimizerOptions paper;
  paper.rates.call_seconds = paper.rates.operator_seconds = paper.rates.open_seconds = 0;
  for (int s : {2, 4}) {
    SCOPED_TRACE("sites " + std::to_string(s));
    const Optimized o = tra::physical::optimize(table_one(deck, s, {"Z"}), paper);
    std::vector<std::string> names;
    for (const auto& a : o.applied) names.push_back(a.rule);
    // §5.2.1: λ(merge)∘λ(diag) merged (R1-2), the filter pushed into the join
    // (R1-6) and under the broadcast (R2-2), diag distributed over the join's
    // inputs (R1-7, diag and + being distributive), then under the broadcast
    // (R2-3, beyond the paper's sequence).
    EXPECT_EQ(names, (std::vector<std::string>{"R1-2", "R1-6", "R2-2", "R1-7", "R2-3"}));
    const std::string text = tra::physical::explain(o);
    size_t at = 0;
    for (const char* r : {"R1-2", "R1-6", "R2-2", "R1-7", "R2-3"}) {
      at = text.find(std::string("  ") + r, at);
      ASSERT_NE(at, std::string::npos) << r << " missing or out of order in\n" << text;
    }
    EXPECT_NE(text.find("elementwise (x + y) of aligned chunks"), std::string::npos) << text;
    // Both inputs filtered to their diagonal blocks and joined where they lie: nothing moves.
    EXPECT_EQ(o.cost.floats_moved, 0);
    EXPECT_LT(o.cost.seconds, o.initial_cost.seconds);
    // The addition runs on the 4 diagonal blocks' diagonals only: 4 x 2 flops,
    // against 16 x 4 for the whole sum.
    EXPECT_EQ(o.initial_cost.flops, 64);
    EXPECT_EQ(o.cost.flops, 8);
  }
}

// §6.1's shapes, scaled: the chosen plan moves the fewest floats of all the
// plans considered, and on 2 sites it is the family the paper's Table 4
// predicts. On 4 sites, where the voxels are placed on a 2x2 processor grid,
// the general and the two-large shapes take the 2D plan (SUMMA's placement:
// each input to the two sites of its row or column of the grid), which moves
// less than a broadcast; RMM needs a 2x2x2 grid, 8 sites.
struct Shape3 {
  const char* name;
  int i, j, k;
  const char* family;  // on 2 sites
  const char* family_on_four;  // on 4 sites
};

class MatmulShapes : public ::testing::TestWithParam<Shape3> {};

TEST_P(MatmulShapes, ChosenPlanMovesLeast) {
  const Shape3 sh = GetParam();
  for (int s : {2, 4}) {
    SCOPED_TRACE(std::string(sh.name) + ", sites " + std::to_string(s));
    OptimizerOptions opt;
    opt.rates = network_bound();
    opt.disabled = {"scan-part", "scan-all", "scan-face"};  // inputs stay where they are read, as in the paper
    const Optimized o = tra::physical::optimize(table_one(matmul(sh.i, sh.j, sh.k), s, {"C"}), opt);
    tra::Index least = -1;
    std::string chosen;
    for (const auto& a : o.alternatives) {
      if (!a.invalid.empty()) continue;
      if (least < 0 || a.cost.floats_moved < least) least = a.cost.floats_moved;
      if (a.chosen) chosen = a.strategy;
    }
    EXPECT_EQ(o.cost.floats_moved, least);
    EXPECT_EQ(chosen.rfind(s == 2 ? sh.family : sh.family_on_four, 0), 0u) << "chosen: " << chosen;
    // The EXPLAIN text marks the same plan.
    const std::string text = tra::physical::explain(o);
    EXPECT_NE(text.find("   * " + chosen), std::string::npos) << text;
  }
}

INSTANTIATE_TEST_SUITE_P(TraPaperSection61, MatmulShapes,
                         ::testing::Values(Shape3{"two general matrices", 256, 256, 256, "BMM", "2D"},
                                           Shape3{"a common large dimension", 64, 2048, 64, "CMM", "CMM"},
                                           Shape3{"two large dimensions", 512, 64, 512, "BMM", "2D"}));

TEST(Optimizer, ForcedStrategyIsUsed) {
  for (const char* family : {"cmm", "rmm", "bmm"}) {  // on 8 sites: RMM needs a 2x2x2 grid
    OptimizerOptions opt;
    opt.strategy = family;
    const Optimized o = tra::physical::optimize(table_one(matmul(64, 64, 64), 8, {"C"}), opt);
    std::string chosen;
    for (const auto& a : o.alternatives)
      if (a.chosen) chosen = a.strategy;
    std::string upper = family;
    std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
    EXPECT_EQ(chosen.rfind(upper, 0), 0u) << family << " forced, chosen: " << chosen;
  }
}

TEST(Optimizer, DisabledRulesAreNotApplied) {
  const std::string deck = matmul(64, 64, 64);
  OptimizerOptions opt;
  opt.disabled = {"R2-4", "R2-5", "CMM", "RMM"};
  const Optimized o = tra::physical::optimize(table_one(deck, 2, {"C"}), opt);
  for (const auto& a : o.applied) {
    EXPECT_NE(a.rule, "R2-4");
    EXPECT_NE(a.rule, "R2-5");
  }
  for (const auto& a : o.alternatives) {
    EXPECT_NE(a.strategy.rfind("CMM", 0), 0u);
    EXPECT_NE(a.strategy.rfind("RMM", 0), 0u);
  }
}

TEST(Optimizer, PhasesAreNamedTimedAndSwitchable) {
  const IaPlan p = table_one(matmul(64, 64, 64), 4, {"C"});
  const Optimized all = tra::physical::optimize(p, {});
  ASSERT_EQ(all.phases.size(), 5u);
  EXPECT_EQ(tra::physical::optimizer_phase_names(), (std::vector<std::string>{"rules", "strategies", "strategies-again", "placement", "everywhere"}));
  for (size_t i = 0; i < all.phases.size(); ++i) {
    EXPECT_EQ(all.phases[i].name, tra::physical::optimizer_phase_names()[i]);
    EXPECT_FALSE(all.phases[i].skipped);
    EXPECT_GE(all.phases[i].seconds, 0);
    EXPECT_FALSE(all.phases[i].after.better_than(all.phases[i].before) && all.phases[i].changes == 0) << all.phases[i].name;
    if (i > 0) EXPECT_EQ(all.phases[i].before.seconds, all.phases[i - 1].after.seconds);  // each starts where the last ended
  }
  EXPECT_EQ(all.phases[0].changes, static_cast<int>(all.applied.size()));
  EXPECT_NE(tra::physical::explain(all).find("== optimizer phases"), std::string::npos);
  // Without the join phases no strategy is tried, and the plan is the rules' fixed point.
  OptimizerOptions rules_only;
  rules_only.disabled = {"strategies", "strategies-again"};
  const Optimized r = tra::physical::optimize(p, rules_only);
  EXPECT_TRUE(r.alternatives.empty());
  EXPECT_TRUE(r.phases[1].skipped && r.phases[2].skipped);
  EXPECT_EQ(r.cost.seconds, all.phases[0].after.seconds);
  EXPECT_FALSE(r.cost.better_than(all.cost));
}

// Forced RMM is the 3D algorithm: its voxels go on a 2x2x2 processor grid,
// on 8 sites (4 blocks per label) and on 10 (10 blocks per label, where the
// row-major site of a voxel used to be its last index, a 1D plan in
// disguise). Each input block goes to the two sites of its coordinates, and
// the partial sums meet on the face of the grid that holds one of them
// (unless spreading them over every site finishes sooner: shuffle-spread,
// off here to count the 3D plan's floats).
TEST(Optimizer, ForcedRmmIsThreeDimensional) {
  for (int sites : {8, 10}) {
    SCOPED_TRACE(std::to_string(sites) + " sites");
    const int parts = sites == 8 ? 4 : 10;
    std::string deck = matmul(40 * parts, 40 * parts, 40 * parts);
    deck.replace(deck.find("{i: 4, j: 4, k: 4}"), 18,
                 "{i: " + std::to_string(parts) + ", j: " + std::to_string(parts) + ", k: " + std::to_string(parts) + "}");
    OptimizerOptions rmm;
    rmm.strategy = "rmm";
    rmm.disabled = {"shuffle-spread"};
    const Optimized o = tra::physical::optimize(table_one(deck, sites, {"C"}), rmm);
    std::string chosen;
    for (const auto& a : o.alternatives)
      if (a.chosen) chosen = a.strategy;
    EXPECT_EQ(chosen, "RMM P=<0,1,2> on 2x2x2");
    // Every join runs on the 2x2x2 grid's sites.
    std::set<int> join_sites;
    for (const auto& n : o.chosen.nodes)
      if (n.kind() == tra::physical::IaNode::Kind::LocalJoin)
        for (const auto& [key, site] : n.dist.at) join_sites.insert(site);
    EXPECT_EQ(join_sites.size(), 8u);
    // N = 40 parts: each input is N² floats; a 3D plan moves at most 2 copies
    // of each input and half of the partial sums: below 4.5 N².
    const double n2 = 40.0 * parts * 40.0 * parts;
    EXPECT_LT(static_cast<double>(o.cost.floats_moved), 4.5 * n2);
  }
}
