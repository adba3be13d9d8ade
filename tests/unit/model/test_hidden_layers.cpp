// IST's hidden layers and its neuron dealing (model/hidden_layers.hpp): the
// classes found in a three-layer network with momentum against the layers
// written out by hand, and the dealing's properties. The exact dealing is
// checked against an independent Python implementation of its specification
// through real runs (tests/regression/check_ist.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "tra/app/plan_deck.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/model/hidden_layers.hpp"

namespace tra::model {
namespace {

// A 12 → 8 → 4 → 3 network; `extra` adds to the graph.
std::string network(const std::string& extra = "") {
  return "tensors:\n"
         "  - {name: X, shape: [20, 12], source: {file: d.h5, dataset: X}, batch: {dim: 0, size: 5}}\n"
         "  - {name: T, shape: [20, 3], source: {file: d.h5, dataset: T}, batch: {dim: 0, size: 5}}\n"
         "  - {name: W1, shape: [12, 8], source: \"uniform(-1, 1, 1)\", param: true}\n"
         "  - {name: b1, shape: [8], source: zeros, param: true}\n"
         "  - {name: W2, shape: [8, 4], source: \"uniform(-1, 1, 2)\", param: true}\n"
         "  - {name: b2, shape: [4], source: zeros, param: true}\n"
         "  - {name: W3, shape: [4, 3], source: \"uniform(-1, 1, 3)\", param: true}\n"
         "  - {name: b3, shape: [3], source: zeros, param: true}\n"
         "  - {name: C, shape: [4], source: ones}\n"
         "graph:\n"
         "  - \"Z1[b,h] = sum_f X[b,f] * W1[f,h]\"\n"
         "  - \"H1[b,h] = relu(Z1[b,h])\"\n"
         "  - \"A1[b,h] = H1[b,h] + b1[h]\"\n"
         "  - \"Z2[b,g] = sum_h A1[b,h] * W2[h,g]\"\n"
         "  - \"H2[b,g] = relu(Z2[b,g] + b2[g])\"\n" +
         extra +
         "  - \"Z3[b,l] = sum_g H2[b,g] * W3[g,l]\"\n"
         "  - \"S[b,l] = Z3[b,l] + b3[l]\"\n"
         "  - \"L = sum_{b,l} sq(S[b,l] - T[b,l])\"\n"
         "train: {loss: L, optimizer: {kind: momentum, lr: 0.1, beta: 0.9}, iterations: 2}\n";
}

std::vector<HiddenLayer> layers_of_deck(const std::string& deck) {
  const app::PlannedDeck p = app::plan_deck(io::parse_deck(deck, "deck.yaml", ""), 1, {});
  std::set<std::string> trained;
  for (const auto& [name, carried] : p.carried) trained.insert(name);
  return hidden_layers(p.workflow, trained);
}

std::set<std::string> dims_text(const HiddenLayer& l) {
  std::set<std::string> out;
  for (const auto& d : l.dims) out.insert(d.tensor + ":" + std::to_string(d.dim));
  return out;
}

TEST(HiddenLayers, AFullyConnectedNetworksHiddenNeuronsAreItsLayersBetweenDataAndClasses) {
  const std::vector<HiddenLayer> layers = layers_of_deck(network());
  ASSERT_EQ(layers.size(), 2u);
  EXPECT_EQ(layers[0].size, 8);
  EXPECT_EQ(layers[1].size, 4);
  EXPECT_EQ(layers[0].name(), "W1 dim 1");
  // The parameters' dimensions and their velocities', nothing of X, T or the classes.
  std::set<std::string> first = dims_text(layers[0]), second = dims_text(layers[1]);
  for (const char* d : {"W1:1", "b1:0", "W2:0"}) EXPECT_TRUE(first.count(d)) << d;
  for (const char* d : {"W2:1", "b2:0", "W3:0"}) EXPECT_TRUE(second.count(d)) << d;
  EXPECT_EQ(first.size(), 6u);  // and W1's, b1's, W2's velocities
  EXPECT_EQ(second.size(), 6u);
  EXPECT_EQ(layers_of(layers, "W2", 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(layers_of(layers, "b3", 1), (std::vector<int>{-1}));
  EXPECT_EQ(layers_of(layers, "X", 2), (std::vector<int>{-1, -1}));
}

TEST(HiddenLayers, ALayerAConstantShapesIsNotHidden) {
  // C (generated, not trained) scales the second hidden layer: it cannot be cut.
  const std::vector<HiddenLayer> layers = layers_of_deck(network("  - \"U[b,g] = H2[b,g] * C[g]\"\n"));
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_EQ(layers[0].size, 8);
}

TEST(HiddenLayers, TraStatementsAreRefusedWhereTheyAreWritten) {
  Workflow wf = io::parse_deck(network(), "deck.yaml", "");
  TraStatement tile;
  tile.op = TraStatement::Op::Tile;
  tile.input = "A1";
  tile.output = "A1t";
  tile.size = 2;
  tile.loc = SourceLoc{"deck.yaml", 30, 5};
  wf.graph.push_back(tile);
  try {
    hidden_layers(wf, {"W1"});
    FAIL() << "a TRA statement was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("deck.yaml:30:5"), std::string::npos) << e.what();
  }
}

TEST(DealNeurons, EverySiteGetsItsShareOfNeuronsOnceInIncreasingOrderDrawnAfreshEachRound) {
  const Index size = 24;
  for (int sites : {1, 2, 3, 4}) {
    std::set<std::vector<std::vector<Index>>> rounds;
    for (Index round = 0; round < 5; ++round) {
      const auto dealt = deal_neurons(9, round, 0, size, sites);
      EXPECT_EQ(dealt, deal_neurons(9, round, 0, size, sites));  // reproducible
      ASSERT_EQ(dealt.size(), static_cast<size_t>(sites));
      std::vector<Index> all;
      for (const auto& mine : dealt) {
        EXPECT_EQ(mine.size(), static_cast<size_t>(size / sites));
        EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
        all.insert(all.end(), mine.begin(), mine.end());
      }
      std::sort(all.begin(), all.end());
      std::vector<Index> every(static_cast<size_t>(size));
      std::iota(every.begin(), every.end(), Index{0});
      EXPECT_EQ(all, every);  // each neuron at exactly one site
      rounds.insert(dealt);
    }
    EXPECT_EQ(rounds.size(), sites == 1 ? 1u : 5u);  // one site holds the whole layer, in order
  }
  EXPECT_NE(deal_neurons(9, 0, 0, size, 4), deal_neurons(9, 0, 1, size, 4));  // layers drawn independently
  EXPECT_NE(deal_neurons(9, 0, 0, size, 4), deal_neurons(10, 0, 0, size, 4));
}

}  // namespace
}  // namespace tra::model
