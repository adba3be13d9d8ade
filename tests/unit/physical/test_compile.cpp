// EinSum → TRA (logical::lower) → IA (physical::compile, the Table-1 plan)
// for C = A x B with A 8x6 and B 6x4, checked against plans and traffic
// counted by hand (TRA paper §5.1 Table 1 for the operators, §5.3 for the costs).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"
#include "tra/physical/compile.hpp"
#include "tra/physical/infer.hpp"

using tra::Shape;
using tra::logical::TraNode;
using tra::model::Workflow;
using tra::physical::IaNode;
using tra::physical::IaPlan;

namespace {

const std::string kDeck =
    "tensors:\n"
    "  - name: A\n"
    "    shape: [8, 6]\n"
    "    source: uniform(-1, 1, 1)\n"
    "  - name: B\n"
    "    shape: [6, 4]\n"
    "    source: uniform(-1, 1, 2)\n"
    "graph:\n"
    "  - C[i,k] = sum_j A[i,j] * B[j,k]\n";

// The same under the `rows` partitioning (EinDecomp, the default, may split j).
const std::string kRows = kDeck +
                          "run:\n"
                          "  partitioning:\n"
                          "    default: rows\n";

// The same with d = (i: 1, j: 2, k: 1) fixed by the deck.
const std::string kSplitJ = kDeck +
                            "run:\n"
                            "  partitioning:\n"
                            "    C: {i: 1, j: 2, k: 1}\n";

std::vector<IaNode::Kind> kinds(const IaPlan& p) {
  std::vector<IaNode::Kind> k;
  for (const auto& n : p.nodes) k.push_back(n.kind());
  return k;
}

int count(const IaPlan& p, IaNode::Kind kind) {
  int n = 0;
  for (const auto& x : p.nodes) n += x.kind() == kind;
  return n;
}

}  // namespace

TEST(TraCompile, RowPartitionedMatmulLowersToJoinAndAggregate) {
  const Workflow wf = tra::io::parse_deck(kRows, "deck.yaml", "");
  for (int s : {1, 2, 4}) {
    SCOPED_TRACE("nranks " + std::to_string(s));
    const auto low = tra::logical::lower(wf, s);
    // The default partitioning splits the first output label i into s parts (8 % s == 0).
    const std::map<std::string, tra::Index> d{{"i", s}, {"j", 1}, {"k", 1}};
    EXPECT_EQ(low.d.at("C"), d);
    const auto& n = low.plan.nodes;
    ASSERT_EQ(n.size(), 4u);
    EXPECT_EQ(n[0].kind, TraNode::Kind::Input);
    EXPECT_EQ(n[0].tensor, "A");
    EXPECT_EQ(n[0].type.frontier, (Shape{s, 1}));
    EXPECT_EQ(n[0].type.chunk_shape, (Shape{8 / s, 6}));
    EXPECT_EQ(n[1].tensor, "B");
    EXPECT_EQ(n[1].type.frontier, (Shape{1, 1}));
    EXPECT_EQ(n[1].type.chunk_shape, (Shape{6, 4}));
    // ⋈(<1>, <0>, K): A's j against B's j; the join key is <i, j, k>.
    EXPECT_EQ(n[2].kind, TraNode::Kind::Join);
    EXPECT_EQ(n[2].keys_left, std::vector<int>{1});
    EXPECT_EQ(n[2].keys_right, std::vector<int>{0});
    EXPECT_EQ(n[2].type.frontier, (Shape{s, 1, 1}));
    EXPECT_EQ(n[2].type.chunk_shape, (Shape{8 / s, 4}));
    EXPECT_TRUE(n[2].einsum->uses_gemm());
    // Σ(<0, 2>, +) down to C's key <i, k>.
    EXPECT_EQ(n[3].kind, TraNode::Kind::Aggregate);
    EXPECT_EQ(n[3].group_by, (std::vector<int>{0, 2}));
    EXPECT_EQ(n[3].type.frontier, (Shape{s, 1}));
    EXPECT_EQ(n[3].keys.size(), static_cast<size_t>(s));
    EXPECT_EQ(low.tensor_node.at("C"), 3);
  }
}

TEST(TraCompile, RowPartitionedMatmulIsTableOne) {
  const Workflow wf = tra::io::parse_deck(kRows, "deck.yaml", "");
  for (int s : {1, 2, 4}) {
    SCOPED_TRACE("nranks " + std::to_string(s));
    const IaPlan p = tra::physical::compile(tra::logical::lower(wf, s).plan, s);
    using K = IaNode::Kind;
    // Table 1: Join → LocalJoin(Bcast(left), right); Aggregate → LocalAgg(Shuffle(groupBy)).
    ASSERT_EQ(kinds(p), (std::vector<K>{K::Scan, K::Scan, K::Bcast, K::LocalJoin, K::Shuffle, K::LocalAgg}));
    // A (48 floats) goes to the s - 1 other sites; the paper counts f·s.
    const IaNode& b = p.nodes[2];
    EXPECT_TRUE(b.dist.everywhere);
    EXPECT_EQ(b.predicted_floats, 48 * (s - 1));
    EXPECT_DOUBLE_EQ(b.paper_cost, 48.0 * s);
    // The join runs where B's single tuple is (site 0), so every block of C
    // but row block 0 moves in the shuffle on <i, k>: (s - 1) blocks of 32/s floats.
    const IaNode& j = p.nodes[3];
    EXPECT_EQ(j.inputs, (std::vector<int>{2, 1}));
    ASSERT_EQ(j.dist.tuples(), s);
    for (const auto& [key, site] : j.dist.at) EXPECT_EQ(site, 0);
    EXPECT_EQ(p.nodes[4].predicted_floats, (s - 1) * 32 / s);
    EXPECT_DOUBLE_EQ(p.nodes[4].paper_cost, 32.0);
    // The whole product is 2 * 8 * 4 * 6 flops however it is split.
    EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 8 * 4 * 6);
    const IaNode& c = p.nodes[5];
    for (const auto& [key, site] : c.dist.at) EXPECT_EQ(site, key[0] % s);
    EXPECT_EQ(p.tra_to_ia.back(), 5);
    EXPECT_TRUE(tra::physical::invalid_reason(p).empty());
  }
}

TEST(TraCompile, SplittingTheSummedLabelShufflesThePartialProducts) {
  const Workflow wf = tra::io::parse_deck(kSplitJ, "deck.yaml", "");
  for (int s : {1, 2, 4}) {
    SCOPED_TRACE("nranks " + std::to_string(s));
    const auto low = tra::logical::lower(wf, s);
    EXPECT_EQ(low.d.at("C").at("j"), 2);
    // A is cut into two 8x3 column blocks, B into two 3x4 row blocks.
    EXPECT_EQ(low.plan.nodes[0].type.frontier, (Shape{1, 2}));
    EXPECT_EQ(low.plan.nodes[1].type.frontier, (Shape{2, 1}));
    const IaPlan p = tra::physical::compile(low.plan, s);
    using K = IaNode::Kind;
    ASSERT_EQ(kinds(p), (std::vector<K>{K::Scan, K::Scan, K::Bcast, K::LocalJoin, K::Shuffle, K::LocalAgg}));
    // The partial product for j sits where B's block j is (site j % s); C's
    // single tuple belongs to site 0, so the j = 1 partial (8x4) moves unless s = 1.
    const IaNode& sh = p.nodes[4];
    EXPECT_EQ(sh.predicted_floats, s == 1 ? 0 : 32);
    EXPECT_DOUBLE_EQ(sh.paper_cost, 64.0);
    const IaNode& c = p.nodes[5];
    ASSERT_EQ(c.dist.tuples(), 1);
    EXPECT_EQ(c.dist.at[0].first, (tra::Key{0, 0}));
    EXPECT_EQ(c.dist.at[0].second, 0);
  }
}

TEST(TraCompile, PartitioningThatDoesNotDivideIsAUserError) {
  const Workflow wf = tra::io::parse_deck(kDeck + "run:\n  partitioning:\n    C: {j: 4}\n", "deck.yaml", "");
  try {
    tra::logical::lower(wf, 2);
    ADD_FAILURE() << "j = 6 split into 4 parts was accepted";
  } catch (const tra::UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("deck.yaml:12:5: ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("does not divide"), std::string::npos) << e.what();
  }
}
