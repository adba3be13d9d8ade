#pragma once
// A naive dense evaluator of EinSum statements: loops over every assignment of
// the labels, one element at a time, on plain host vectors. It shares no code
// with the engine's chunking, planning, kernels or communication, so comparing
// the two checks all of those.
#include <map>
#include <string>
#include <vector>

#include "tra/core/tensor_relation.hpp"
#include "tra/einsum/statement.hpp"
#include "tra/model/workflow.hpp"

namespace tra::testing {

struct Dense {
  Shape shape;
  std::vector<double> v;
  double at(const Key& idx) const { return v[static_cast<size_t>(linearize(idx, shape))]; }
};

Dense evaluate(const einsum::EinSum& st, const std::map<std::string, Dense>& tensors);

// Every tensor of a workflow whose graph holds only EinSum statements:
// inputs generated whole, then each statement evaluated in order.
std::map<std::string, Dense> evaluate_workflow(const model::Workflow& wf);

// A whole tensor from the tuples of a standard-form relation (keys → blocks).
Dense assemble(const std::vector<Tuple>& tuples, const Shape& frontier, const Shape& chunk_shape);

// Largest |a - b| over all elements (shapes must agree).
double max_abs_diff(const Dense& a, const Dense& b);

// Random values in [-1, 1] (seeded) that are floats, so that a float32 and a
// float64 run start from the same values.
Dense random_floats(const Shape& shape, unsigned seed);

}  // namespace tra::testing
