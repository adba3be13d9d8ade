// The gradient pass (autodiff/gradients.hpp) against central finite
// differences: each case is a small deck, its forward + backward graph is
// evaluated by the naive reference evaluator (tests/support), and every
// element of every parameter's gradient is compared with the difference
// quotient of the loss. Then the arg-extreme ties as PyTorch shares them, the
// statements the pass writes for the common cases, and its located errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>

#include "support/reference_evaluator.hpp"
#include "tra/autodiff/gradients.hpp"
#include "tra/io/deck/deck_reader.hpp"

namespace tra::autodiff {
namespace {

using testing::Dense;

model::Workflow deck(const std::string& text) { return io::parse_deck(text, "deck.yaml", ""); }

// Inputs drawn in [lo, hi] by the test's own generator.
std::map<std::string, Dense> random_inputs(const model::Workflow& wf, std::uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::map<std::string, Dense> t;
  for (const auto& decl : wf.tensors) {
    Dense d{decl.shape, std::vector<double>(static_cast<size_t>(volume(decl.shape)))};
    for (double& v : d.v) v = u(rng);
    t[decl.name] = d;
  }
  return t;
}

// Every statement of `graph[0, upto)` in order, on top of `t`.
// An element-wise transform runs as the map it is (as_elementwise_einsum).
std::map<std::string, Dense> run(const model::Workflow& wf, std::map<std::string, Dense> t, size_t upto) {
  for (size_t i = 0; i < upto; ++i) {
    const auto* tra = std::get_if<model::TraStatement>(&wf.graph[i]);
    const einsum::EinSum e = tra ? *as_elementwise_einsum(*tra, wf) : std::get<einsum::EinSum>(wf.graph[i]);
    t[e.output.name] = testing::evaluate(e, t);
  }
  return t;
}

double loss_at(const model::Workflow& wf, const std::map<std::string, Dense>& inputs) {
  return run(wf, inputs, wf.graph.size()).at(wf.train->loss).v.at(0);
}

// Central differences with h = 1e-6 err by about h²·|L'''| + eps·|L|/h, far
// below the 1e-6 relative allowed on these O(1) problems.
void expect_gradients_match(const std::string& text, double lo = -1, double hi = 1, std::uint64_t seed = 1) {
  const model::Workflow wf = deck(text);
  const Gradients g = with_gradients(wf);
  const auto inputs = random_inputs(wf, seed, lo, hi);
  const auto all = run(g.workflow, inputs, g.workflow.graph.size());
  ASSERT_FALSE(g.params.empty());
  for (const std::string& p : g.params) {
    const Dense& grad = all.at(grad_name(p));
    ASSERT_EQ(grad.shape, inputs.at(p).shape) << p;
    for (size_t e = 0; e < grad.v.size(); ++e) {
      auto up = inputs, down = inputs;
      const double h = 1e-6;
      up[p].v[e] += h;
      down[p].v[e] -= h;
      const double fd = (loss_at(wf, up) - loss_at(wf, down)) / (2 * h);
      EXPECT_NEAR(grad.v[e], fd, 1e-6 * std::max(1.0, std::abs(fd))) << p << ".grad element " << e;
    }
  }
}

const char* const kHead = "tensors:\n";

TEST(Gradients, MatmulAndSquaredError) {
  expect_gradients_match(std::string(kHead) +
                         "  - {name: X, shape: [3, 4], source: ones}\n"
                         "  - {name: W, shape: [4, 2], source: ones, param: true}\n"
                         "  - {name: T, shape: [3, 2], source: ones}\n"
                         "graph:\n"
                         "  - \"Y[b,o] = sum_f X[b,f] * W[f,o]\"\n"
                         "  - \"L = sum_{b,o} sq(Y[b,o] - T[b,o]) / 6\"\n"
                         "train: {loss: L}\n");
}

// A two-layer FFNN with biases, relu and softmax cross-entropy (TRA §6.3).
TEST(Gradients, FfnnWithSoftmaxCrossEntropy) {
  expect_gradients_match(std::string(kHead) +
                         "  - {name: X, shape: [3, 4], source: ones}\n"
                         "  - {name: W1, shape: [4, 5], source: ones, param: true}\n"
                         "  - {name: b1, shape: [5], source: ones, param: true}\n"
                         "  - {name: W2, shape: [5, 3], source: ones, param: true}\n"
                         "  - {name: T, shape: [3, 3], source: ones}\n"
                         "graph:\n"
                         "  - \"A[b,h] = sum_f X[b,f] * W1[f,h]\"\n"
                         "  - \"H[b,h] = relu(A[b,h] + b1[h])\"\n"
                         "  - \"Z[b,c] = sum_h H[b,h] * W2[h,c]\"\n"
                         "  - \"P[b,c] = softmax_c(Z[b,c])\"\n"
                         "  - \"L = sum_{b,c} -T[b,c] * log(P[b,c])\"\n"
                         "train: {loss: L}\n");
}

// log_softmax cross-entropy, its stable form: S.grad = P.grad − exp(P) Σ P.grad.
TEST(Gradients, LogSoftmaxCrossEntropy) {
  expect_gradients_match(std::string(kHead) +
                         "  - {name: X, shape: [3, 4], source: ones}\n"
                         "  - {name: W, shape: [4, 5], source: ones, param: true}\n"
                         "  - {name: T, shape: [3, 5], source: ones}\n"
                         "graph:\n"
                         "  - \"Z[b,c] = sum_f X[b,f] * W[f,c]\"\n"
                         "  - \"P[b,c] = log_softmax_c(Z[b,c])\"\n"
                         "  - \"L = sum_{b,c} -T[b,c] * P[b,c]\"\n"
                         "train: {loss: L}\n");
}

// Sigmoid + binary cross-entropy, tanh, exp: derivatives read the outputs.
TEST(Gradients, MapsWhoseDerivativeReadsTheirOutput) {
  expect_gradients_match(std::string(kHead) +
                             "  - {name: X, shape: [3, 4], source: ones}\n"
                             "  - {name: W, shape: [4, 2], source: ones, param: true}\n"
                             "  - {name: T, shape: [3, 2], source: ones}\n"
                             "graph:\n"
                             "  - \"A[b,o] = sum_f X[b,f] * W[f,o]\"\n"
                             "  - \"S[b,o] = sigmoid(A[b,o])\"\n"
                             "  - \"E[b,o] = exp(A[b,o])\"\n"
                             "  - \"R[b,o] = tanh(A[b,o])\"\n"
                             "  - \"U[b,o] = relu(A[b,o])\"\n"
                             "  - \"B[b,o] = -(T[b,o] * log(S[b,o]) + (1 - T[b,o]) * log(1 - S[b,o]))\"\n"
                             "  - \"ER[b,o] = E[b,o] * R[b,o]\"\n"
                             "  - \"C[b,o] = B[b,o] + ER[b,o]\"\n"
                             "  - \"D[b,o] = C[b,o] + U[b,o]\"\n"
                             "  - \"L = sum_{b,o} D[b,o]\"\n"
                             "train: {loss: L}\n",
                         0.1, 0.9);
}

// A tensor read twice by one statement and by two statements adds the
// contributions; a parameter read with its labels summed away gets the
// gradient broadcast back (W.grad[i,j] = 2·S[i]).
TEST(Gradients, SeveralConsumersAndBroadcastBack) {
  expect_gradients_match(std::string(kHead) +
                             "  - {name: W, shape: [3, 4], source: ones, param: true}\n"
                             "  - {name: V, shape: [3], source: ones, param: true}\n"
                             "graph:\n"
                             "  - \"A[i,j] = W[i,j] * W[i,j]\"\n"
                             "  - \"S[i] = sum_j W[i,j]\"\n"
                             "  - \"B[i] = exp(V[i]) * S[i]\"\n"
                             "  - \"C[i] = sum_j A[i,j] + V[i]\"\n"
                             "  - \"Q[i] = B[i] * C[i]\"\n"
                             "  - \"L = sum_i sq(S[i]) + Q[i]\"\n"
                             "train: {loss: L}\n",
                         0.2, 0.8);
}

// Derivatives that read both inputs, and labels only one input has: the
// derivative is materialized over every label and reduced (in G the count of
// m values multiplies W's gradient).
TEST(Gradients, DerivativesOverEveryLabel) {
  expect_gradients_match(std::string(kHead) +
                         "  - {name: X, shape: [3, 4], source: ones}\n"
                         "  - {name: W, shape: [4, 2], source: ones, param: true}\n"
                         "  - {name: V, shape: [5], source: ones, param: true}\n"
                         "graph:\n"
                         "  - \"D[i,k] = sum_j sq(X[i,j] - W[j,k]) / (1 + abs(W[j,k]))\"\n"
                         "  - \"E[k] = sum_{j,m} W[j,k] * pow(V[m], 2) + sqrt(abs(V[m]) + 1)\"\n"
                         "  - \"G[k] = sum_{j,m} W[j,k] + V[m]\"\n"
                         "  - \"F[i,k] = D[i,k] * softplus(E[k] / 10)\"\n"
                         "  - \"H[k] = E[k] * G[k]\"\n"
                         "  - \"Q[k] = sum_i F[i,k]\"\n"
                         "  - \"L = sum_k Q[k] + H[k]\"\n"
                         "train: {loss: L}\n");
}

// max and min aggregations (distinct values: no ties here) send the
// gradient to the arg-extremes, also of a two-input join function.
TEST(Gradients, MaxAndMinAggregations) {
  expect_gradients_match(std::string(kHead) +
                         "  - {name: X, shape: [3, 4], source: ones}\n"
                         "  - {name: W, shape: [4, 2], source: ones, param: true}\n"
                         "  - {name: V, shape: [4], source: ones, param: true}\n"
                         "graph:\n"
                         "  - \"M[i] = max_j X[i,j] * V[j]\"\n"
                         "  - \"N[i,k] = min_j abs(X[i,j] - W[j,k])\"\n"
                         "  - \"O = max_{i,k} N[i,k]\"\n"
                         "  - \"L = sum_i M[i] + O[]\"\n"
                         "train: {loss: L}\n");
}

// Ties share the gradient, as torch.amax: M = max_j W[i,j] with W[0,1] =
// W[0,3] the maximum of row 0 gives each of them 1/2.
TEST(Gradients, TiesShareTheGradient) {
  const model::Workflow wf = deck(std::string(kHead) +
                                  "  - {name: W, shape: [2, 4], source: ones, param: true}\n"
                                  "graph:\n"
                                  "  - \"M[i] = max_j W[i,j]\"\n"
                                  "  - \"L = sum_i M[i]\"\n"
                                  "train: {loss: L}\n");
  const Gradients g = with_gradients(wf);
  std::map<std::string, Dense> t;
  t["W"] = Dense{{2, 4}, {0.1, 0.7, 0.2, 0.7, 0.5, 0.4, 0.3, 0.2}};
  const Dense grad = run(g.workflow, t, g.workflow.graph.size()).at("W.grad");
  EXPECT_EQ(grad.v, (std::vector<double>{0, 0.5, 0, 0.5, 1, 0, 0, 0}));
}

// What the pass writes for a GEMM: A GEMM again (a bare product of the
// output's gradient and the other input), no intermediate.
TEST(Gradients, AContractionsGradientIsAContraction) {
  const model::Workflow wf = deck(std::string(kHead) +
                                  "  - {name: X, shape: [3, 4], source: ones}\n"
                                  "  - {name: W, shape: [4, 2], source: ones, param: true}\n"
                                  "graph:\n"
                                  "  - \"Y[b,o] = sum_f X[b,f] * W[f,o]\"\n"
                                  "  - \"L = sum_{b,o} sq(Y[b,o])\"\n"
                                  "train: {loss: L}\n");
  const Gradients g = with_gradients(wf);
  ASSERT_EQ(g.forward, 2u);
  ASSERT_EQ(g.workflow.graph.size(), 4u);  // Y.grad, W.grad: X needs none
  const auto& y = std::get<einsum::EinSum>(g.workflow.graph[2]);
  const auto& w = std::get<einsum::EinSum>(g.workflow.graph[3]);
  EXPECT_EQ(y.text, "Y.grad[b,o] = 2 * Y[b,o]");
  EXPECT_EQ(w.text, "W.grad[f,o] = sum_{b} Y.grad[b,o] * X[b,f]");
  EXPECT_TRUE(w.join.is_product());
}

// A gradient that passes a statement unchanged (Z = Y + c reaching Y) is the
// same tensor: no statement copies it, and the contraction before reads it.
TEST(Gradients, AGradientPassedUnchangedIsNotCopied) {
  const model::Workflow wf = deck(std::string(kHead) +
                                  "  - {name: X, shape: [3, 4], source: ones}\n"
                                  "  - {name: W, shape: [4, 2], source: ones, param: true}\n"
                                  "  - {name: c, shape: [2], source: ones, param: true}\n"
                                  "graph:\n"
                                  "  - \"Y[b,o] = sum_f X[b,f] * W[f,o]\"\n"
                                  "  - \"Z[b,o] = Y[b,o] + c[o]\"\n"
                                  "  - \"L = sum_{b,o} sq(Z[b,o])\"\n"
                                  "train: {loss: L}\n");
  const Gradients g = with_gradients(wf);
  std::vector<std::string> texts;
  for (size_t i = g.forward; i < g.workflow.graph.size(); ++i) texts.push_back(std::get<einsum::EinSum>(g.workflow.graph[i]).text);
  EXPECT_EQ(texts,
            (std::vector<std::string>{"Z.grad[b,o] = 2 * Z[b,o]", "c.grad[o] = sum_{b} Z.grad[b,o]", "W.grad[f,o] = sum_{b} Z.grad[b,o] * X[b,f]"}));
}

std::string error_of(const std::string& text) {
  try {
    with_gradients(deck(text));
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

// The error of reading `text` or of the gradient pass on it holds `message`
// (file:line:column first).
void expect_error(const std::string& text, const std::string& message) {
  const std::string e = error_of(text);
  EXPECT_NE(e.find(message), std::string::npos) << e;
}

TEST(Gradients, AnElementwiseTransformDifferentiatesAsItsMap) {
  // A TRA transform with a function of x between a parameter and the loss:
  // the gradient passes it as it passes the same map written as an EinSum.
  const std::string text = std::string(kHead) +
                           "  - {name: X, shape: [4, 3], source: ones}\n"
                           "  - {name: W, shape: [3, 2], source: ones, param: true}\n"
                           "graph:\n"
                           "  - \"Z[b,o] = sum_f X[b,f] * W[f,o]\"\n"
                           "  - {op: transform, input: Z, output: H, kernel: \"tanh(x) + 0.5 * x * x\"}\n"
                           "  - \"L = sum_{b,o} sq(H[b,o])\"\n"
                           "train: {loss: L}\n";
  expect_gradients_match(text);
  const Gradients g = with_gradients(deck(text));
  EXPECT_TRUE(std::any_of(g.workflow.graph.begin() + static_cast<long>(g.forward), g.workflow.graph.end(),
                          [](const model::Statement& s) { return model::statement_output(s) == "Z.grad"; }));
}

TEST(Gradients, MistakesAreLocated) {
  const std::string tensors = std::string(kHead) +
                              "  - {name: X, shape: [3, 4], source: ones}\n"
                              "  - {name: W, shape: [4, 2], source: ones, param: true}\n";
  expect_error(tensors + "graph:\n  - \"Y[b,o] = sum_f X[b,f] * W[f,o]\"\ntrain: {loss: Y}\n", "deck.yaml:6:15: the loss 'Y' must be a scalar");
  expect_error(tensors + "graph:\n  - \"Y[b,o] = sum_f X[b,f] * W[f,o]\"\ntrain: {loss: Q}\n",
               "deck.yaml:6:15: train: loss names 'Q', which no statement computes");
  expect_error(tensors +
                   "  - {name: V, shape: [2], source: ones, param: true}\n"
                   "graph:\n  - \"Y[b,o] = sum_f X[b,f] * W[f,o]\"\n  - \"L = sum_{b,o} Y[b,o]\"\ntrain: {loss: L}\n",
               "deck.yaml:4:48: parameter 'V' has no path to the loss 'L'");
  expect_error(tensors +
                   "graph:\n  - \"Y[b,o] = sum_f X[b,f] * W[f,o]\"\n"
                   "  - {op: filter, input: Y, output: F, where: \"k0 < 2\"}\n"
                   "  - \"L = sum_{b,o} F[b,o]\"\ntrain: {loss: L}\n",
               "deck.yaml:6:5: the gradient cannot pass a filter statement");
  expect_error(tensors + "graph:\n  - \"Y[b,o] = sum_f X[b,f] * W[f,o]\"\ntrain: {loss: X}\n", "deck.yaml:6:15: the loss 'X' is a declared tensor");
  expect_error(tensors + "graph:\n  - \"Y[b,o] = sum_f X[b,f] * W[f,o]\"\n  - {op: rekey, input: Y, output: L, key: \"[k0]\"}\ntrain: {loss: L}\n",
               "deck.yaml:7:15: the loss 'L' must be computed by an EinSum statement");
  // Ten nested tanh: the derivative's chain of 1 - tanh² factors, each over
  // its own nested argument, exceeds what one statement holds.
  std::string nested = "W[f,o]";
  for (int i = 0; i < 10; ++i) nested = "tanh(" + nested + ")";
  expect_error(tensors + "graph:\n  - \"Y[f,o] = " + nested + " * X[f,f2]\"\n  - \"L = sum_{f,o} Y[f,o]\"\ntrain: {loss: L}\n",
               "deck.yaml:5:6: the derivative of");
  expect_error("tensors:\n  - {name: X, shape: [3], source: ones}\ngraph:\n  - \"L = sum_i X[i]\"\ntrain: {loss: L}\n",
               "deck.yaml:5:8: train: no tensor has 'param: true'");
  expect_error("tensors:\n  - {name: W, shape: [4], source: ones, param: maybe}\ngraph: []\n", "deck.yaml:2:48: 'param' is true or false");
  expect_error(tensors + "graph:\n  - \"L = sum_{f,o} W[f,o]\"\n",
               "deck.yaml:3:51: tensor 'W' is a parameter (param: true), but the deck has no train: section");
}

}  // namespace
}  // namespace tra::autodiff
