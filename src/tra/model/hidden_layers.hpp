#pragma once
// The hidden neurons Independent Subnet Training deals out (thesis §2.1):
// the dimensions along which a subnetwork is cut.
//
// A statement ties together every (tensor, dimension) pair it writes with
// one label; the pairs tied directly or through other statements form a
// dimension class. A class is a hidden layer when it holds a dimension of a
// trained tensor (a parameter, or an optimizer's state of one) and of no
// other declared tensor: the input features and the classes are dimensions
// of the data, the batch rows too, and a constant (a generated tensor that
// is not trained) cannot be cut. In a fully connected network
// X·W1 + b1 → W2 → …, W1's columns, b1 and W2's rows are one hidden layer.
//
// Each round every hidden layer's neurons are dealt to the sites, each
// neuron to one: a permutation of the layer cut into equal runs, so every
// neuron goes to each site with probability 1/n and every site's
// subnetwork has the same shape. A site keeps its neurons in increasing
// order, so that one site's subnetwork is the whole network, unpermuted.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "tra/model/workflow.hpp"

namespace tra::model {

struct HiddenDim {
  std::string tensor;  // a trained tensor of the workflow
  int dim = 0;
};

struct HiddenLayer {
  Index size = 0;  // neurons
  std::vector<HiddenDim> dims;  // the trained tensors' dimensions in the class, as first met in the declarations
  std::string name() const;  // its first dimension, "W1 dim 1"
};

// The workflow's hidden layers, in the order their first dimension is
// declared. `trained`: the tensors a step updates (its loop-carried ones).
// A TRA statement (filter, rekey, tile, concat) is refused at its place:
// IST cuts EinSum graphs only.
std::vector<HiddenLayer> hidden_layers(const Workflow& wf, const std::set<std::string>& trained);

// For each dimension of `tensor` (of `rank` dimensions), the index of its
// hidden layer, or -1.
std::vector<int> layers_of(const std::vector<HiddenLayer>& layers, const std::string& tensor, int rank);

// The neurons each of `sites` sites holds of hidden layer `layer` (of
// `size` neurons, a multiple of sites) in `round` (0-based): a
// Fisher–Yates permutation of 0..size-1 driven by SplitMix64 seeded with
// seed ^ round·0xD1B54A32D192ED03 ^ (layer+1)·0xA24BAED4963EE407 (modulo
// 2^64), cut into `sites` runs of size/sites, each sorted
// (docs/training.md writes it out for a reference to repeat).
std::vector<std::vector<Index>> deal_neurons(std::uint64_t seed, Index round, int layer, Index size, int sites);

}  // namespace tra::model
