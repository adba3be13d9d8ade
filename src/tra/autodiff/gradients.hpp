#pragma once
// Relational reverse-mode automatic differentiation (the relational-autodiff
// paper, Algorithms 1–2): a deck's forward graph becomes forward + backward
// graph before partitioning, so that EinDecomp and the IA optimizer plan both
// as one graph.
//
// An EinSum Z[lZ] = ⊕_{agg} f(X[lX], Y[lY]) is a join followed by an
// aggregation, and the RJP of that pair is again an EinSum:
//
//   ⊕ = sum:   X.grad[lX] = sum Z.grad[lZ] * ∂f/∂x(X, Y)   over the labels X lacks
//
// (for f = c·x·y, X.grad = sum c·Z.grad·Y, a GEMM), with ∂f/∂x taken
// symbolically from the scalar program (einsum/scalar_expr.hpp). When ∂f/∂x
// reads both inputs, or the labels of the one it reads and of Z.grad do not
// cover the statement's, it is materialized first over every label. For
// ⊕ = max/min the gradient goes to the arg-extremes, shared by ties (as
// PyTorch's amax does). One-input maps whose derivative is a function of
// their output (exp, sigmoid, tanh, relu) read the output. The softmax macro
// gets the stable form S.grad = P·(P.grad − Σ_j P.grad·P), log_softmax
// S.grad = P.grad − exp(P)·Σ_j P.grad. A tensor read by
// several statements adds their contributions (the paper's `add`).
//
// A TRA transform with an element-wise kernel of a whole tensor (declared,
// or an EinSum's result) is that map as an EinSum, and differentiates as
// one; the other TRA statements (filter, rekey, tile, concat, diag) stop the
// gradient with a located error.
//
// Only tensors on a path from a parameter to the loss get gradients. The
// generated tensors are named after the forward ones with a '.', which no
// name written in a deck can hold: W.grad, and intermediates such as h.d0.
#include <optional>
#include <string>
#include <vector>

#include "tra/model/workflow.hpp"

namespace tra::autodiff {

// "W" -> "W.grad".
std::string grad_name(const std::string& tensor);

struct Gradients {
  model::Workflow workflow;  // the deck's statements, then the generated ones
  std::size_t forward = 0;  // how many of workflow.graph are the deck's
  std::vector<std::string> params;  // in declaration order; each has grad_name(p)
};

// The EinSum Z[u0, ...] = f(X[u0, ...]) that a transform statement with an
// element-wise kernel f computes, when its input is a whole tensor of wf
// (declared, or an EinSum's result); none otherwise.
std::optional<einsum::EinSum> as_elementwise_einsum(const model::TraStatement& t, const model::Workflow& wf);

// wf.train must be set. Located UserErrors: a loss that is not a scalar
// computed by an EinSum statement, no parameter, a parameter with no path to
// the loss, a statement the gradient cannot pass (TRA statements), a
// derivative too long for one statement.
Gradients with_gradients(const model::Workflow& wf);

}  // namespace tra::autodiff
