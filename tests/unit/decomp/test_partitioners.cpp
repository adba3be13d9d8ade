// The partitioners a deck chooses (`run: partitioner:`), the deck keys that
// choose them, and lowering with their d's and cost terms.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "tra/decomp/partitioners.hpp"
#include "tra/decomp/viable.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"

using namespace tra;
using namespace tra::decomp;
using D = std::map<std::string, Index>;

namespace {

// C = A · B with A 8x6 and B 6x4 (as in tests/unit/physical/test_compile.cpp).
const std::string kMatmul =
    "tensors:\n"
    "  - {name: A, shape: [8, 6], source: ones}\n"
    "  - {name: B, shape: [6, 4], source: ones}\n"
    "graph:\n"
    "  - \"C[i,k] = sum_j A[i,j] * B[j,k]\"\n";

const std::string kChain =
    "tensors:\n"
    "  - {name: X, shape: [256, 192], source: ones}\n"
    "  - {name: W1, shape: [192, 80], source: ones}\n"
    "  - {name: W2, shape: [80, 48], source: ones}\n"
    "graph:\n"
    "  - \"H[i,k] = sum_j X[i,j] * W1[j,k]\"\n"
    "  - \"R[i,k] = tanh(H[i,k])\"\n"
    "  - \"Y[i,m] = sum_k R[i,k] * W2[k,m]\"\n";

logical::Lowering lower(const std::string& deck, int nranks) { return logical::lower(io::parse_deck(deck, "deck.yaml", ""), nranks); }

std::string error_of(const std::string& deck) {
  try {
    io::parse_deck(deck, "deck.yaml", "");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

}  // namespace

TEST(Partitioners, NamesRoundTrip) {
  for (Partitioner k : {Partitioner::EinDecomp, Partitioner::Sqrt, Partitioner::DataParallel, Partitioner::ModelParallel, Partitioner::Manual})
    EXPECT_EQ(partitioner_named(partitioner_name(k)), k);
  EXPECT_FALSE(partitioner_named("rows"));
}

TEST(Partitioners, RulesOnTheMatmul) {
  const Graph g = build_graph(io::parse_deck(kMatmul, "deck.yaml", ""));  // labels [i, k, j], bounds [8, 4, 6]
  auto d = [&](Partitioner k, int nranks, bool rows = false) { return decompose(g, {k, nranks, 1, rows}).d[0]; };
  EXPECT_EQ(d(Partitioner::DataParallel, 4), (Partitioning{4, 1, 1}));
  EXPECT_EQ(d(Partitioner::DataParallel, 16), (Partitioning{8, 1, 1}));  // i = 8 allows no more
  EXPECT_EQ(d(Partitioner::ModelParallel, 4), (Partitioning{1, 4, 1}));  // the last output label k
  EXPECT_EQ(d(Partitioner::ModelParallel, 8), (Partitioning{1, 4, 1}));
  EXPECT_EQ(d(Partitioner::Sqrt, 4), (Partitioning{2, 2, 2}));  // √4 = 2 per label
  EXPECT_EQ(d(Partitioner::Sqrt, 8), (Partitioning{4, 4, 2}));  // √8 rounded up to 4; j = 6 takes 2
  EXPECT_EQ(d(Partitioner::Manual, 4), (Partitioning{1, 1, 1}));
  EXPECT_EQ(d(Partitioner::Manual, 3, true), (Partitioning{2, 1, 1}));  // rows: largest divisor of 8 up to 3
  // The dynamic program: i: 2, j: 2 moves 4·(12 + 12) + 2·1·16 = 128, less than i: 4 (4·(12 + 24) = 144).
  const Plan e = decompose(g, {Partitioner::EinDecomp, 4, 1, false});
  EXPECT_EQ(e.d[0], (Partitioning{2, 1, 2}));
  EXPECT_DOUBLE_EQ(e.total, 128.0);
}

TEST(Partitioners, ScalarOutputsSplitAnAggregatedLabel) {
  const Graph g =
      build_graph(io::parse_deck("tensors:\n  - {name: A, shape: [8, 16], source: ones}\ngraph:\n  - \"S = sum_{i,j} A[i,j]\"\n", "deck.yaml", ""));
  EXPECT_EQ(decompose(g, {Partitioner::DataParallel, 4, 1, false}).d[0], (Partitioning{4, 1}));
  EXPECT_EQ(decompose(g, {Partitioner::ModelParallel, 4, 1, false}).d[0], (Partitioning{1, 4}));
}

TEST(Partitioners, DeckKeys) {
  auto run = [](const std::string& r) { return io::parse_deck(kMatmul + "run:\n" + r, "deck.yaml", "").run; };
  EXPECT_EQ(run("  partitioner: sqrt\n").partitioner, Partitioner::Sqrt);
  EXPECT_EQ(run("  partitioner: data-parallel\n").partitioner, Partitioner::DataParallel);
  EXPECT_EQ(run("  partitioner: model-parallel\n").partitioner, Partitioner::ModelParallel);
  EXPECT_EQ(run("  partitioning:\n    C: {i: 2}\n").partitioner, Partitioner::EinDecomp);
  EXPECT_EQ(run("  overdecomposition: 4\n").overdecomposition, 4);
  // `default:` without a partitioner keeps its old meaning: the manual partitioner.
  const auto old = run("  partitioning:\n    default: none\n");
  EXPECT_EQ(old.partitioner, Partitioner::Manual);
  EXPECT_TRUE(old.default_given);
  EXPECT_EQ(run("  partitioner: manual\n  partitioning:\n    default: rows\n").partitioner, Partitioner::Manual);
}

TEST(Partitioners, BadDeckKeysAreLocated) {
  // Line 6 is the first line under run:. Each case: the run: section, and
  // how the message must begin.
  const std::pair<const char*, const char*> cases[] = {
      {"  partitioner: rows\n", "deck.yaml:7:16: unknown partitioner 'rows'; expected eindecomp, sqrt"},
      {"  overdecomposition: 3\n", "deck.yaml:7:22: overdecomposition is a power of two from 1 to 1024"},
      {"  overdecomposition: 2048\n", "deck.yaml:7:22: overdecomposition is a power of two"},
      {"  overdecomposition: 0\n", "deck.yaml:7:22: overdecomposition must be at least 1"},
      {"  overdecomposition: two\n", "deck.yaml:7:22: overdecomposition must be an integer"},
      {"  partitioning:\n    default: rows\n  partitioner: sqrt\n", "deck.yaml:8:14: 'default' applies to partitioner manual only"},
      {"  partitioners: sqrt\n", "deck.yaml:7:3: unknown key 'partitioners' in run"},
  };
  for (const auto& [run, expected] : cases) {
    const std::string msg = error_of(kMatmul + "run:\n" + run);
    EXPECT_TRUE(starts_with(msg, expected)) << msg;
  }
}

TEST(Partitioners, LoweringUsesThePartitionersD) {
  EXPECT_EQ(lower(kMatmul, 4).d.at("C"), (D{{"i", 2}, {"j", 2}, {"k", 1}}));  // eindecomp, the default
  EXPECT_EQ(lower(kMatmul, 2).d.at("C"), (D{{"i", 2}, {"j", 1}, {"k", 1}}));
  EXPECT_EQ(lower(kMatmul + "run:\n  partitioning:\n    default: rows\n", 4).d.at("C"), (D{{"i", 4}, {"j", 1}, {"k", 1}}));
  EXPECT_EQ(lower(kMatmul + "run:\n  partitioner: manual\n", 4).d.at("C"), (D{{"i", 1}, {"j", 1}, {"k", 1}}));
  EXPECT_EQ(lower(kMatmul + "run:\n  partitioner: data-parallel\n", 4).d.at("C"), (D{{"i", 4}, {"j", 1}, {"k", 1}}));
  EXPECT_EQ(lower(kMatmul + "run:\n  partitioner: model-parallel\n", 4).d.at("C"), (D{{"i", 1}, {"j", 1}, {"k", 4}}));
  EXPECT_EQ(lower(kMatmul + "run:\n  partitioner: sqrt\n", 4).d.at("C"), (D{{"i", 2}, {"j", 2}, {"k", 2}}));
  // The deck's d wins, whatever the partitioner.
  const auto pinned = lower(kMatmul + "run:\n  partitioner: sqrt\n  partitioning:\n    C: {j: 3}\n", 4);
  EXPECT_EQ(pinned.d.at("C"), (D{{"i", 1}, {"j", 3}, {"k", 1}}));
  EXPECT_TRUE(pinned.decomposition.from_deck.count("C"));
}

TEST(Partitioners, KernelCallsFromRanksAndOverDecomposition) {
  auto calls = [](const logical::Lowering& low) {
    Index n = 1;
    for (const auto& [l, parts] : low.d.at("H")) n *= parts;
    return n;
  };
  const auto three = lower(kChain, 3);  // 3 ranks plan for 4 kernel calls
  EXPECT_EQ(three.decomposition.kernel_calls, 4);
  EXPECT_EQ(calls(three), 4);
  const auto over = lower(kChain + "run:\n  overdecomposition: 4\n", 2);
  EXPECT_EQ(over.decomposition.kernel_calls, 8);
  EXPECT_EQ(over.decomposition.overdecomposition, 4);
  EXPECT_EQ(calls(over), 8);
}

TEST(Partitioners, LoweringRecordsTheCostTerms) {
  const model::Workflow wf = io::parse_deck(kChain, "deck.yaml", "");
  const auto low = logical::lower(wf, 4);
  const auto& r = low.decomposition;
  EXPECT_EQ(r.partitioner, "eindecomp");
  ASSERT_EQ(r.methods.size(), 1u);
  EXPECT_NE(r.methods[0].find("from statement H on: exact dynamic program"), std::string::npos) << r.methods[0];
  // As lowered, the terms are those the planner optimised (no input is read twice).
  const Graph g = build_graph(wf);
  const Plan plan = decompose(g, {Partitioner::EinDecomp, 4, 1, false});
  for (size_t v = 0; v < g.vertices.size(); ++v) {
    const auto& c = r.cost.at(g.vertices[v].name);
    EXPECT_DOUBLE_EQ(c.join, plan.cost[v].join);
    EXPECT_DOUBLE_EQ(c.agg, plan.cost[v].agg);
    ASSERT_EQ(c.repart.size(), plan.cost[v].repart.size());
    for (size_t k = 0; k < c.repart.size(); ++k) {
      EXPECT_EQ(c.repart[k].first, plan.cost[v].repart[k].first);
      EXPECT_DOUBLE_EQ(c.repart[k].second, plan.cost[v].repart[k].second);
    }
  }
  EXPECT_DOUBLE_EQ(r.total, plan.total);
}
