// EinSum → TRA (logical::lower) → IA (physical::compile) for C = A x B with
// A 8x6 and B 6x4, checked against plans and traffic counted by hand
// (TRA paper §5.1 Table 1 for the operators, §5.3 for the costs).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"
#include "tra/physical/compile.hpp"

using tra::Shape;
using tra::io::Workflow;
using tra::logical::TraNode;
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

// The same with d = (i: 1, j: 2, k: 1) fixed by the deck.
const std::string kSplitJ = kDeck +
                            "run:\n"
                            "  partitioning:\n"
                            "    C: {i: 1, j: 2, k: 1}\n";

std::vector<IaNode::Kind> kinds(const IaPlan& p) {
  std::vector<IaNode::Kind> k;
  for (const auto& n : p.nodes) k.push_back(n.kind);
  return k;
}

int count(const IaPlan& p, IaNode::Kind kind) {
  int n = 0;
  for (const auto& x : p.nodes) n += x.kind == kind;
  return n;
}

}  // namespace

TEST(TraCompile, RowPartitionedMatmulLowersToJoinAndAggregate) {
  const Workflow wf = tra::io::parse_deck(kDeck, "deck.yaml", "");
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

TEST(TraCompile, RowPartitionedMatmulReadsBOnEverySiteAndNeedsNoShuffle) {
  const Workflow wf = tra::io::parse_deck(kDeck, "deck.yaml", "");
  for (int s : {1, 2, 4}) {
    SCOPED_TRACE("nranks " + std::to_string(s));
    const IaPlan p = tra::physical::compile(tra::logical::lower(wf, s).plan, s);
    using K = IaNode::Kind;
    // Scan A, Scan B, Scan B on every site, LocalJoin, LocalAgg: the smaller
    // input B is the broadcast side, and Bcast(Scan(B)) is read whole on every
    // site instead; no Shuffle, since d splits only i and every group of
    // Σ(<0,2>) is one tuple on one site.
    ASSERT_EQ(kinds(p), (std::vector<K>{K::Scan, K::Scan, K::Scan, K::LocalJoin, K::LocalAgg}));
    EXPECT_EQ(count(p, K::Shuffle), 0);
    EXPECT_EQ(count(p, K::Bcast), 0);

    const IaNode& b = p.nodes[2];
    EXPECT_EQ(b.source, p.nodes[1].source);
    EXPECT_TRUE(b.placement.is_all());
    EXPECT_TRUE(b.dist.everywhere);
    EXPECT_EQ(b.predicted_floats, 0);
    EXPECT_EQ(p.predicted_floats(), 0);

    // A stays where it was scanned (row block r on site r); the join runs there.
    const IaNode& j = p.nodes[3];
    EXPECT_EQ(j.inputs, (std::vector<int>{0, 2}));
    ASSERT_EQ(j.dist.tuples(), s);
    for (const auto& [key, site] : j.dist.at) EXPECT_EQ(site, key[0]);
    // The whole product is 2 * 8 * 4 * 6 flops however it is split.
    EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 8 * 4 * 6);

    const IaNode& c = p.nodes[4];
    EXPECT_EQ(c.dist.tuples(), s);
    EXPECT_EQ(c.placement.str(), s == 1 ? "Part<>" : "Part<0>");
    EXPECT_EQ(p.tra_to_ia.back(), 4);
    if (s == 2) EXPECT_NE(p.str().find("read on every site"), std::string::npos) << p.str();
  }
}

TEST(TraCompile, SplittingTheSummedLabelAddsAShuffle) {
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
    // The two partial products C_j = A_j B_j sit on the sites of A's blocks
    // (j on site j % s); Σ over j needs them together: R2-5, a partial local
    // aggregation, a Shuffle, and the final one.
    ASSERT_EQ(kinds(p), (std::vector<K>{K::Scan, K::Scan, K::Scan, K::LocalJoin, K::LocalAgg, K::Shuffle, K::LocalAgg}));

    // B (the smaller input, 2 x 12 floats) is read on every site: nothing moves.
    EXPECT_TRUE(p.nodes[2].dist.everywhere);
    EXPECT_EQ(p.nodes[2].predicted_floats, 0);

    // Shuffle: C has one tuple, owned by site 0; the 8x4 partial for j = 1 is
    // on site 1 % s and must move unless that is site 0.
    const IaNode& sh = p.nodes[5];
    EXPECT_TRUE(p.nodes[4].scattered);
    EXPECT_EQ(p.nodes[4].dist.tuples(), s == 1 ? 1 : 2);
    const tra::Index moved = s == 1 ? 0 : 8 * 4;
    EXPECT_EQ(sh.predicted_floats, moved);
    EXPECT_DOUBLE_EQ(sh.paper_cost, (s == 1 ? 1 : 2) * 32.0);  // f: every partial tuple's floats
    EXPECT_EQ(p.predicted_floats(), moved);

    const IaNode& c = p.nodes[6];
    ASSERT_EQ(c.dist.tuples(), 1);
    EXPECT_EQ(c.dist.at[0].first, (tra::Key{0, 0}));
    EXPECT_EQ(c.dist.at[0].second, 0);
  }
}

// A computed relation on the broadcast side really is broadcast: every tuple
// reaches the s - 1 sites that lack it.
constexpr const char* kBroadcastIntermediate = R"yaml(
tensors:
  - {name: A, shape: [8, 6], source: "uniform(-1, 1, 1)"}
  - {name: B, shape: [6, 4], source: "uniform(-1, 1, 2)"}
  - {name: G, shape: [16, 8], source: "uniform(-1, 1, 3)"}
graph:
  - "C[i,k] = sum_j A[i,j] * B[j,k]"
  - "F[x,k] = sum_i G[x,i] * C[i,k]"
run:
  partitioning:
    C: {i: 2}
    F: {i: 2}
)yaml";

TEST(TraCompile, IntermediateOnTheBroadcastSideIsBroadcast) {
  const Workflow wf = tra::io::parse_deck(kBroadcastIntermediate, "deck.yaml", "");
  for (int s : {1, 2, 4}) {
    SCOPED_TRACE("nranks " + std::to_string(s));
    const auto low = tra::logical::lower(wf, s);
    const IaPlan p = tra::physical::compile(low.plan, s);
    const int c = p.tra_to_ia[static_cast<size_t>(low.tensor_node.at("C"))];
    int bcasts = 0;
    for (const IaNode& n : p.nodes) {
      if (n.kind != IaNode::Kind::Bcast) continue;
      ++bcasts;
      // C: two 4x4 tuples (32 floats, smaller than G's 128), both sent to s - 1 sites.
      EXPECT_EQ(n.inputs, std::vector<int>{c});
      EXPECT_EQ(n.predicted_floats, 32 * (s - 1));
      EXPECT_DOUBLE_EQ(n.paper_cost, 32.0 * s);
    }
    EXPECT_EQ(bcasts, 1);
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
