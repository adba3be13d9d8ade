#pragma once
// The optimizer's update as statements of the same graph (issue: forward,
// backward and update planned as one graph): for each parameter W, W.next
// from W and W.grad by PyTorch's formulas, and for state the optimizer keeps
// (momentum's velocity, Adam's moments), a tensor declared zero and its
// .next. A training loop runs the plan, then reads every X.next as the next
// iteration's X.
//
// Adam's bias corrections depend on the step count, which the plan must not:
// they are 0-d input tensors (step_scalars) that the loop sets every
// iteration, so that one plan serves every step.
#include <map>
#include <string>
#include <vector>

#include "tra/autodiff/gradients.hpp"

namespace tra::autodiff {

// "W" -> "W.next".
std::string next_name(const std::string& tensor);
// "W.next" -> "W": the tensor a statement's output carries into the next
// iteration; "" for any other name.
std::string carried_by(const std::string& name);

// Appends the update statements (and the state tensors) for rule to g's
// workflow; returns the loop-carried tensors (parameters, then state), each
// read by the next iteration from next_name(tensor).
std::vector<std::string> add_updates(Gradients& g, const model::UpdateRule& rule);

// The 0-d tensors the update of `step` (1 for the first) reads, with their
// values as PyTorch computes them; empty for SGD and momentum.
std::map<std::string, double> step_scalars(const model::UpdateRule& rule, Index step);

}  // namespace tra::autodiff
