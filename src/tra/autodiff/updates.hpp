#pragma once
// The optimizer's update as statements of the same graph (issue: forward,
// backward and update planned as one graph): for each parameter W, W.next
// from W and W.grad by PyTorch's formulas, and for state the optimizer keeps
// (momentum's velocity), a tensor declared zero and its .next. A training
// loop runs the plan, then reads every X.next as the next iteration's X.
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

}  // namespace tra::autodiff
