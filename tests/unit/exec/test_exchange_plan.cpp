// Send and receive counts read off the plan (exec/exchange_plan.hpp): what
// every rank sends to every other is what that one receives, and the floats
// they add up to are the node's predicted floats, which the MPI tests check
// against what the executor measures.
#include <gtest/gtest.h>

#include "tra/app/plan_deck.hpp"
#include "tra/exec/exchange_plan.hpp"
#include "tra/io/deck/deck_reader.hpp"

namespace tra::exec {
namespace {

TEST(ExchangePlan, CountsPairUpAndAddUpToThePredictedFloats) {
  const std::string deck =
      "tensors:\n"
      "  - {name: A, shape: [64, 64], source: \"uniform(-1, 1, 1)\"}\n"
      "  - {name: B, shape: [64, 64], source: \"uniform(-1, 1, 2)\"}\n"
      "graph:\n"
      "  - \"C[i,k] = sum_j A[i,j] * B[j,k]\"\n"
      "  - \"S[i] = sum_k relu(C[i,k])\"\n"
      "run:\n"
      "  partitioning: {C: {i: 4, j: 4, k: 4}, S: {i: 2, k: 4}}\n";
  const model::Workflow wf = io::parse_deck(deck, "deck.yaml", "");
  int shuffles = 0, broadcasts = 0;
  for (const char* strategy : {"rmm", "cmm", "bmm", "2d"}) {
    physical::OptimizerOptions o;
    o.strategy = strategy;
    const physical::IaPlan p = app::plan_deck(wf, 8, o).optimized.chosen;
    for (const auto& n : p.nodes) {
      const Index per = volume(n.type.chunk_shape);
      if (n.kind() == physical::IaNode::Kind::Shuffle && !p.node(n.inputs[0]).dist.everywhere) {
        ++shuffles;
        std::vector<comm::Counts> c;
        for (int r = 0; r < p.nsites; ++r) c.push_back(shuffle_counts(p, n, r));
        Index sent = 0;
        for (int r = 0; r < p.nsites; ++r)
          for (int t = 0; t < p.nsites; ++t) {
            EXPECT_EQ(c[r].send[t], c[t].recv[r]) << strategy << ": " << r << " -> " << t;
            sent += c[r].send[t];
          }
        EXPECT_EQ(sent * per, n.predicted_floats) << strategy << ": " << n.words();
      }
      if (n.kind() == physical::IaNode::Kind::Bcast) {
        ++broadcasts;
        Index held = 0;
        for (int h : broadcast_counts(p, n)) held += h;
        EXPECT_EQ(held * per * (p.nsites - 1), n.predicted_floats);
      }
    }
  }
  EXPECT_GT(shuffles, 0);
  EXPECT_GT(broadcasts, 0);
}

}  // namespace
}  // namespace tra::exec
