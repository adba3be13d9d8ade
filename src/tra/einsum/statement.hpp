#pragma once
// One extended-EinSum statement (EinDecomp §3, equation 2):
//
//   Z[lZ] = ⊕_{lagg} ⊗(X[lX], Y[lY])
//
// with at most two inputs, a scalar join function ⊗ and an aggregation ⊕ over
// the labels that appear in the inputs but not in the output.
#include <map>
#include <string>
#include <vector>

#include "tra/common/error.hpp"
#include "tra/einsum/scalar_program.hpp"

namespace tra::einsum {

using Label = std::string;
using Labels = std::vector<Label>;

struct TensorRef {
  std::string name;
  Labels labels;
  SourceLoc loc;  // where the name is written
};

struct EinSum {
  std::string text;  // the statement as written
  SourceLoc loc;  // where the statement starts
  TensorRef output;
  std::vector<TensorRef> inputs;  // one or two
  AggOp agg = AggOp::None;
  Labels agg_labels;  // labels in the inputs but not in the output, in first-seen order
  ScalarProgram join;

  // Every label once: the output's first, then the aggregated ones.
  Labels all_labels() const;
  std::string str() const;  // canonical text
};

// A statement built in code (the gradient pass, the optimizer's update):
// every label of the inputs that the output lacks is summed; located at
// `at`, with its canonical text.
EinSum make_sum_einsum(const TensorRef& output, std::vector<TensorRef> inputs, const ScalarProgram& join, const SourceLoc& at);

}  // namespace tra::einsum
