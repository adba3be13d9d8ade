// The EinGraph (EinDecomp §5) built from a deck: labels, bounds, producer →
// consumer edges, boundaries, TRA statements as graph boundaries, pins.
#include <gtest/gtest.h>

#include "tra/decomp/graph.hpp"
#include "tra/io/deck/deck_reader.hpp"

using namespace tra;
using namespace tra::decomp;

namespace {

const char* kDeck =
    "tensors:\n"
    "  - {name: X, shape: [8, 6], source: ones}\n"
    "  - {name: W, shape: [6, 4], chunk: [3, 4], source: ones}\n"
    "graph:\n"
    "  - \"H[b,o] = sum_f X[b,f] * W[f,o]\"\n"
    "  - \"R[b,o] = relu(H[b,o])\"\n"
    "  - \"G[b,o] = H[b,o] * R[b,o]\"\n"
    "  - {op: transform, input: G, output: T, kernel: \"2*x\"}\n"
    "  - \"U[b] = sum_o T[b,o]\"\n"
    "  - \"V[b] = U[b] + U[b]\"\n"
    "  - \"S = sum_{b,o} G[b,o]\"\n"
    "run:\n"
    "  partitioning:\n"
    "    R: {b: 2}\n";

}  // namespace

TEST(Graph, VerticesEdgesAndBoundaries) {
  const model::Workflow wf = io::parse_deck(kDeck, "deck.yaml", "");
  const Graph g = build_graph(wf);
  ASSERT_EQ(g.vertices.size(), 4u);  // H, R, G, S; U and V read the TRA output T
  EXPECT_EQ(g.left_out, (std::vector<std::string>{"U", "V"}));

  const Vertex& h = g.vertices[0];
  EXPECT_EQ(h.name, "H");
  EXPECT_EQ(h.statement, 0);
  EXPECT_EQ(h.labels, (Labels{"b", "o", "f"}));  // output labels, then the aggregated one
  EXPECT_EQ(h.bound, (Shape{8, 4, 6}));
  EXPECT_EQ(h.output_pos, (std::vector<int>{0, 1}));
  ASSERT_EQ(h.inputs.size(), 2u);
  EXPECT_EQ(h.inputs[0].tensor, "X");
  EXPECT_EQ(h.inputs[0].label_pos, (std::vector<int>{0, 2}));
  EXPECT_EQ(h.inputs[0].producer, -1);
  EXPECT_FALSE(h.inputs[0].fixed_grid);  // declared without chunk: free
  EXPECT_EQ(h.inputs[1].fixed_grid, (Shape{2, 1}));  // W's chunk [3, 4] of [6, 4]
  EXPECT_EQ(h.consumers, (std::vector<int>{1, 2}));  // R and G read H: a shared intermediate
  EXPECT_EQ(h.input_grid({2, 1, 3}, 0), (Shape{2, 3}));
  EXPECT_EQ(h.output_grid({2, 1, 3}), (Shape{2, 1}));

  const Vertex& r = g.vertices[1];
  EXPECT_EQ(r.inputs[0].producer, 0);
  EXPECT_EQ(r.pinned, (Partitioning{2, 1}));
  EXPECT_FALSE(h.pinned);

  const Vertex& gg = g.vertices[2];
  EXPECT_EQ(gg.inputs[0].producer, 0);
  EXPECT_EQ(gg.inputs[1].producer, 1);
  EXPECT_EQ(gg.consumers, (std::vector<int>{3}));  // S; T is a TRA statement, not a vertex

  const Vertex& s = g.vertices[3];
  EXPECT_TRUE(s.output_pos.empty());  // a scalar
  EXPECT_EQ(s.labels, (Labels{"b", "o"}));
  EXPECT_EQ(s.output_shape(), Shape{});
}

TEST(Graph, GivenTensorsStartALaterRound) {
  // Once T is lowered (8x4 on grid [4, 1]), U, V and S are planned from
  // statement 4 on; G, lowered earlier, is a boundary on the grid it is held on.
  const model::Workflow wf = io::parse_deck(kDeck, "deck.yaml", "");
  const Graph g = build_graph(wf, {{"T", Boundary{{8, 4}, Shape{4, 1}}}, {"G", Boundary{{8, 4}, Shape{2, 2}}}}, 4);
  ASSERT_EQ(g.vertices.size(), 3u);
  EXPECT_TRUE(g.left_out.empty());
  EXPECT_EQ(g.vertices[0].name, "U");
  EXPECT_EQ(g.vertices[0].inputs[0].fixed_grid, (Shape{4, 1}));
  EXPECT_EQ(g.vertices[0].consumers, (std::vector<int>{1}));  // U[b] + U[b] is one input of V (the parser merges equal references)
  EXPECT_EQ(g.vertices[1].name, "V");
  EXPECT_TRUE(g.vertices[1].consumers.empty());
  EXPECT_EQ(g.vertices[2].name, "S");
  EXPECT_EQ(g.vertices[2].inputs[0].producer, -1);
  EXPECT_EQ(g.vertices[2].inputs[0].fixed_grid, (Shape{2, 2}));
  // Without G given, S cannot be sized here.
  EXPECT_EQ(build_graph(wf, {{"T", Boundary{{8, 4}, Shape{4, 1}}}}, 4).left_out, (std::vector<std::string>{"S"}));
}

TEST(Graph, StatementsThatCannotBeSizedAreLeftOutForLoweringToReport) {
  const model::Workflow wf = io::parse_deck(
      "tensors:\n  - {name: A, shape: [4, 3], source: ones}\n"
      "graph:\n"
      "  - \"B[i,j] = A[i,j] * A[j,i]\"\n"  // j is 3 in one place and 4 in the other
      "  - \"C[i] = sum_j Q[i,j]\"\n"  // Q is unknown
      "  - \"D[i,j] = relu(A[i,j])\"\n",
      "deck.yaml", "");
  const Graph g = build_graph(wf);
  ASSERT_EQ(g.vertices.size(), 1u);
  EXPECT_EQ(g.vertices[0].name, "D");
  EXPECT_EQ(g.left_out, (std::vector<std::string>{"B", "C"}));
}
