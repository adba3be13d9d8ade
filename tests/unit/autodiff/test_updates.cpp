// The optimizer's update statements (autodiff/updates.hpp): PyTorch's
// torch.optim.SGD step, with and without momentum, evaluated by the naive
// reference evaluator on given values and compared with the formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "support/reference_evaluator.hpp"
#include "tra/autodiff/updates.hpp"
#include "tra/io/deck/deck_reader.hpp"

namespace tra::autodiff {
namespace {

using testing::Dense;

Gradients trained(const std::string& optimizer) {
  const model::Workflow wf = io::parse_deck(
      "tensors:\n"
      "  - {name: X, shape: [3, 2], source: ones}\n"
      "  - {name: W, shape: [2], source: ones, param: true}\n"
      "graph:\n"
      "  - \"Z[b] = sum_f X[b,f] * W[f]\"\n"
      "  - \"L = sum_b sq(Z[b])\"\n"
      "train: {loss: L, optimizer: " +
          optimizer + ", iterations: 1}\n",
      "deck.yaml", "");
  Gradients g = with_gradients(wf);
  std::vector<std::string> carried{"W"};
  if (optimizer.find("momentum") != std::string::npos) carried.push_back("W.momentum");
  if (optimizer.find("adam") != std::string::npos) carried.insert(carried.end(), {"W.exp_avg", "W.exp_avg_sq"});
  EXPECT_EQ(add_updates(g, *wf.train->optimizer), carried);
  return g;
}

// The update statements after the gradient's, on the values in t.
std::map<std::string, Dense> run_updates(const Gradients& g, size_t from, std::map<std::string, Dense> t) {
  for (size_t i = from; i < g.workflow.graph.size(); ++i) {
    const auto& e = std::get<einsum::EinSum>(g.workflow.graph[i]);
    t[e.output.name] = testing::evaluate(e, t);
  }
  return t;
}

TEST(Updates, SgdStepsAgainstTheGradient) {
  const Gradients g = trained("{kind: sgd, lr: 0.25}");
  const size_t first_update = g.workflow.graph.size() - 1;
  EXPECT_EQ(std::get<einsum::EinSum>(g.workflow.graph.back()).text, "W.next[u0] = (W[u0] + W.grad[u0] * -0.25)");
  std::map<std::string, Dense> t{{"W", Dense{{2}, {1.0, -2.0}}}, {"W.grad", Dense{{2}, {0.5, 4.0}}}};
  const Dense next = run_updates(g, first_update, t).at("W.next");
  EXPECT_EQ(next.v, (std::vector<double>{1.0 - 0.25 * 0.5, -2.0 - 0.25 * 4.0}));
}

TEST(Updates, MomentumKeepsAVelocity) {
  const Gradients g = trained("{kind: momentum, lr: 0.5, beta: 0.75}");
  const model::TensorDecl* buf = g.workflow.find_tensor("W.momentum");
  ASSERT_NE(buf, nullptr);
  EXPECT_EQ(buf->shape, (Shape{2}));
  EXPECT_EQ(std::get<model::Generator>(buf->source).kind, model::Generator::Kind::Zeros);
  const size_t first_update = g.workflow.graph.size() - 2;
  std::map<std::string, Dense> t{{"W", Dense{{2}, {1.0, -2.0}}}, {"W.grad", Dense{{2}, {0.5, 4.0}}}, {"W.momentum", Dense{{2}, {2.0, -1.0}}}};
  const auto r = run_updates(g, first_update, t);
  EXPECT_EQ(r.at("W.momentum.next").v, (std::vector<double>{0.75 * 2.0 + 0.5, 0.75 * -1.0 + 4.0}));
  EXPECT_EQ(r.at("W.next").v, (std::vector<double>{1.0 - 0.5 * (0.75 * 2.0 + 0.5), -2.0 - 0.5 * (0.75 * -1.0 + 4.0)}));
}

TEST(Updates, ANonnegativeParameterIsProjectedInItsUpdate) {
  // constraint: nonnegative: W.next = max(W − lr·g, 0), as clamp_(min=0)
  // after the step; the same statement, no extra pass.
  const model::Workflow wf = io::parse_deck(
      "tensors:\n"
      "  - {name: X, shape: [3, 2], source: ones}\n"
      "  - {name: W, shape: [2], source: ones, param: true, constraint: nonnegative}\n"
      "graph:\n"
      "  - \"Z[b] = sum_f X[b,f] * W[f]\"\n"
      "  - \"L = sum_b sq(Z[b])\"\n"
      "train: {loss: L, optimizer: {kind: sgd, lr: 0.5}, iterations: 1}\n",
      "deck.yaml", "");
  Gradients g = with_gradients(wf);
  add_updates(g, *wf.train->optimizer);
  EXPECT_EQ(std::get<einsum::EinSum>(g.workflow.graph.back()).text, "W.next[u0] = relu((W[u0] + W.grad[u0] * -0.5))");
  const auto r = run_updates(g, g.workflow.graph.size() - 1, {{"W", Dense{{2}, {1.0, 0.25}}}, {"W.grad", Dense{{2}, {0.5, 4.0}}}});
  EXPECT_EQ(r.at("W.next").v, (std::vector<double>{0.75, 0.0}));
}

// torch.optim.Adam's step 3 (bias corrections 1 − β^3), written out as
// PyTorch 1.13's _single_tensor_adam rounds it.
TEST(Updates, AdamFollowsPyTorchsStep) {
  const Gradients g = trained("{kind: adam, lr: 0.01, beta1: 0.8, beta2: 0.9, eps: 1e-3}");
  for (const char* state : {"W.exp_avg", "W.exp_avg_sq"}) {
    const model::TensorDecl* t = g.workflow.find_tensor(state);
    ASSERT_NE(t, nullptr) << state;
    EXPECT_EQ(t->shape, (Shape{2}));
  }
  const size_t first_update = g.workflow.graph.size() - 6;
  model::UpdateRule adam;
  adam.kind = model::UpdateRule::Kind::Adam;
  adam.lr = 0.01;
  adam.beta = 0.8;
  adam.beta2 = 0.9;
  adam.eps = 1e-3;
  const std::map<std::string, double> scalars = step_scalars(adam, 3);
  ASSERT_EQ(scalars.size(), 2u);
  std::map<std::string, Dense> t{{"W", Dense{{2}, {1.0, -2.0}}},
                                 {"W.grad", Dense{{2}, {0.5, 4.0}}},
                                 {"W.exp_avg", Dense{{2}, {0.25, -1.0}}},
                                 {"W.exp_avg_sq", Dense{{2}, {0.125, 3.0}}}};
  for (const auto& [name, value] : scalars) t[name] = Dense{{}, {value}};
  const auto r = run_updates(g, first_update, t);
  const double bc1 = 1 - std::pow(0.8, 3.0), bc2 = 1 - std::pow(0.9, 3.0);
  for (size_t i = 0; i < 2; ++i) {
    const double grad = t["W.grad"].v[i];
    const double m = t["W.exp_avg"].v[i] * 0.8 + grad * (1 - 0.8);
    const double v = t["W.exp_avg_sq"].v[i] * 0.9 + (1 - 0.9) * grad * grad;
    const double denom = std::sqrt(v) / std::sqrt(bc2) + 1e-3;
    EXPECT_EQ(r.at("W.exp_avg.next").v[i], m);
    EXPECT_EQ(r.at("W.exp_avg_sq.next").v[i], v);
    EXPECT_EQ(r.at("W.next").v[i], t["W"].v[i] + -(0.01 / bc1) * m / denom);
  }
  EXPECT_TRUE(step_scalars(model::UpdateRule{}, 3).empty());
}

}  // namespace
}  // namespace tra::autodiff
