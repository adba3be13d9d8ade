// The optimizer's update statements (autodiff/updates.hpp): PyTorch's
// torch.optim.SGD step, with and without momentum, evaluated by the naive
// reference evaluator on given values and compared with the formulas.
#include <gtest/gtest.h>

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
      "train: {loss: L, optimizer: " + optimizer + ", iterations: 1}\n",
      "deck.yaml", "");
  Gradients g = with_gradients(wf);
  const std::vector<std::string> carried = optimizer.find("momentum") != std::string::npos ? std::vector<std::string>{"W", "W.momentum"}
                                                                                         : std::vector<std::string>{"W"};
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

}  // namespace
}  // namespace tra::autodiff
